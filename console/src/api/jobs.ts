/** Jobs: the list, one job, and the actions on jobs (pause, resume, trigger, cancel, create, edit). */

import type { CreateJob, JobListQuery, UpdateJob } from '@chronos/client';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSession } from '../session.tsx';
import { keys } from './keys.ts';
import { jobRefetchMs } from './polling.ts';
import { data } from './result.ts';

export function useJobList(query: JobListQuery) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.jobList(query),
    queryFn: () => data(client.jobs.listPage(query)),
    placeholderData: keepPreviousData,
  });
}

/** One job, read again while it may change by itself (polling.ts: a due one-time job follows its run's end). */
export function useJob(id: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.job(id),
    queryFn: () => data(client.jobs.get(id)),
    refetchInterval: (current) => jobRefetchMs(current.state.data, Date.now()),
  });
}

export type JobAction = 'pause' | 'resume' | 'trigger' | 'cancel';

/** One action on one job; every job query is refreshed after it. */
export function useJobAction() {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, action }: { id: string; action: JobAction }): Promise<unknown> => {
      const call = client.jobs[action];
      return data<unknown>(call(id));
    },
    onSettled: () => queries.invalidateQueries({ queryKey: keys.jobs }),
  });
}

export function useCreateJob() {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: ({ body, idempotencyKey }: { body: CreateJob; idempotencyKey: string }) =>
      data(client.jobs.create(body, { idempotencyKey })),
    onSuccess: () => queries.invalidateQueries({ queryKey: keys.jobs }),
  });
}

/** PATCH with If-Match: a 409 (the job changed since it was read) comes back as a ChronosError. */
export function useUpdateJob() {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body, version }: { id: string; body: UpdateJob; version: number }) =>
      data(client.jobs.update(id, body, version)),
    onSuccess: () => queries.invalidateQueries({ queryKey: keys.jobs }),
  });
}
