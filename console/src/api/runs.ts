/** Runs: a job's run history and the dead letters, and re-driving them. */

import { type ApiError, ChronosError, type DeadLetterQuery, type Run, type RunListQuery } from '@chronos/client';
import { keepPreviousData, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSession } from '../session.tsx';
import { keys } from './keys.ts';
import { ACTIVE_JOB_MS, MOVING_MS } from './polling.ts';
import { data } from './result.ts';

/** A run in one of these may still change: the history polls while one is shown. */
const UNENDED: ReadonlySet<Run['status']> = new Set(['QUEUED', 'RUNNING']);
export const isEnded = (run: Run) => !UNENDED.has(run.status);

/**
 * A page of a job's runs. Polls while any run on it is not ended (and, slower, while the job is
 * active, so new occurrences appear); when a run ends the job is read again, since its
 * `latestRun`, `status` and `upcoming` follow its runs.
 */
export function useRuns(jobId: string, query: RunListQuery, jobActive: boolean) {
  const { client } = useSession();
  const queries = useQueryClient();
  const runs = useQuery({
    queryKey: keys.runs(jobId, query),
    queryFn: () => data(client.jobs.runsPage(jobId, query)),
    placeholderData: keepPreviousData,
    // Fast while a run shown is still moving; slower while the job may add runs; not at all otherwise.
    refetchInterval: (current) => {
      const items = current.state.data?.items ?? [];
      if (items.some((run) => !isEnded(run))) return MOVING_MS;
      return jobActive ? ACTIVE_JOB_MS : false;
    },
  });
  const signature = runs.data?.items.map((run) => `${run.runId}:${run.status}`).join(',');
  const previous = useRef(signature);
  useEffect(() => {
    if (previous.current !== undefined && signature !== previous.current) {
      // The job alone (exact): its runs' queries were just read.
      void queries.invalidateQueries({ queryKey: keys.job(jobId), exact: true });
    }
    previous.current = signature;
  }, [signature, jobId, queries]);
  return runs;
}

export function useDeadLetters(query: DeadLetterQuery) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.deadLetters(query),
    queryFn: () => data(client.deadLetters.listPage(query)),
    placeholderData: keepPreviousData,
  });
}

/** The names of these jobs (a dead letter names its job by id only), each from the job's own query. */
export function useJobNames(jobIds: readonly string[]): Record<string, string | undefined> {
  const { client } = useSession();
  const results = useQueries({
    queries: jobIds.map((id) => ({
      queryKey: keys.job(id),
      queryFn: () => data(client.jobs.get(id)),
      staleTime: 60_000,
    })),
  });
  const names: Record<string, string | undefined> = {};
  jobIds.forEach((id, index) => {
    names[id] = results[index]?.data?.name;
  });
  return names;
}

/** What re-driving one run came to: the new run, or the API's refusal. */
export type RedriveOutcome = { runId: string; run: Run } | { runId: string; refused: ApiError };

/**
 * Re-drives runs one after another (each its own POST /v1/runs/{runId}/retry) and answers every
 * run's outcome: one refusal (409, 429 with Retry-After) does not stop the others.
 */
export function useRedrive() {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: async (runIds: readonly string[]): Promise<RedriveOutcome[]> => {
      const outcomes: RedriveOutcome[] = [];
      for (const runId of runIds) {
        try {
          outcomes.push({ runId, run: await data(client.deadLetters.redrive(runId)) });
        } catch (error) {
          if (!(error instanceof ChronosError)) throw error;
          outcomes.push({ runId, refused: error.error });
        }
      }
      return outcomes;
    },
    onSettled: () => {
      void queries.invalidateQueries({ queryKey: ['dead-letters'] });
      void queries.invalidateQueries({ queryKey: keys.jobs });
    },
  });
}

/**
 * Asks a run to stop (POST /v1/runs/{runId}/cancel): a queued run ends CANCELLED at once, an
 * async run in flight is asked through its next heartbeat and ends CANCELLED after its grace. The
 * job's runs (and the job) are read again either way: a refusal (409 RUN_ENDED) means they moved.
 */
export function useCancelRun(jobId: string) {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => data(client.runs.cancel(runId)),
    onSettled: () => queries.invalidateQueries({ queryKey: keys.job(jobId) }),
  });
}
