/** Flow control per key (issue #22): a key's limits and its runs in flight and waiting, live. */
import { useQuery } from '@tanstack/react-query';
import { useSession } from '../session.tsx';
import { keys } from './keys.ts';
import { ChronosError, data } from './result.ts';

/** In flight and waiting move with every run: read again this often while shown. */
const REFRESH_MS = 5_000;

/** GET /v1/flow-control/{key}; a 404 (no job wrote the key yet) is an answer, not retried. */
export function useFlowControl(key: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.flowControl(key),
    queryFn: () => data(client.flowControl.get(key)),
    refetchInterval: (query) =>
      query.state.error instanceof ChronosError && query.state.error.error.status === 404 ? false : REFRESH_MS,
    retry: (count, error) => !(error instanceof ChronosError && error.error.status === 404) && count < 2,
  });
}
