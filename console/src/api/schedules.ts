/** The server's preview of a schedule's next occurrences (the scanner's own schedule code). */

import type { PreviewScheduleBody } from '@chronos/client';
import { useQuery } from '@tanstack/react-query';
import { useSession } from '../session.tsx';
import { keys } from './keys.ts';
import { data } from './result.ts';

/** `body` undefined: nothing to preview yet (an incomplete form). */
export function useSchedulePreview(body: PreviewScheduleBody | undefined) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.preview(body ?? {}),
    queryFn: () => data(client.schedules.preview(body as PreviewScheduleBody)),
    enabled: body !== undefined,
    retry: false,
  });
}
