/** Runs: a job's run history and the dead letters, and re-driving one. */

import type { DeadLetterQuery, RunListQuery } from '@chronos/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSession } from '../session.tsx';
import { keys } from './keys.ts';
import { data } from './result.ts';

export function useRuns(jobId: string, query: RunListQuery) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.runs(jobId, query),
    queryFn: () => data(client.jobs.runsPage(jobId, query)),
    placeholderData: keepPreviousData,
  });
}

export function useDeadLetters(query: DeadLetterQuery) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.deadLetters(query),
    queryFn: () => data(client.deadLetters.listPage(query)),
    placeholderData: keepPreviousData,
  });
}

export function useRedrive() {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => data(client.deadLetters.redrive(runId)),
    onSettled: () => {
      void queries.invalidateQueries({ queryKey: ['dead-letters'] });
      void queries.invalidateQueries({ queryKey: keys.jobs });
    },
  });
}
