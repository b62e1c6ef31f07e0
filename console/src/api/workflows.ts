/**
 * Workflows: the list, one workflow and its runs, one workflow run, and the actions on them
 * (trigger, pause, resume, delete; retry and cancel a run), through the typed client.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSession } from '../session.tsx';
import { keys } from './keys.ts';
import { MOVING_MS } from './polling.ts';
import { data } from './result.ts';
import type { WorkflowListQuery, WorkflowRun } from './workflow-types.ts';

/** While the workflow may start runs on its schedule, its runs list looks for new ones this often. */
const ACTIVE_WORKFLOW_MS = 10_000;

export function useWorkflowList(query: WorkflowListQuery) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.workflowList(query),
    queryFn: () => data(client.workflows.listPage(query)),
    placeholderData: keepPreviousData,
  });
}

export function useWorkflow(id: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.workflow(id),
    queryFn: () => data(client.workflows.get(id)),
  });
}

/**
 * A page of a workflow's runs, newest first: read again fast while one shown is RUNNING, slower
 * while the workflow's schedule may start new ones, not at all otherwise.
 */
export function useWorkflowRuns(id: string, query: WorkflowListQuery, scheduled: boolean) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.workflowRuns(id, query),
    queryFn: () => data(client.workflows.runsPage(id, query)),
    placeholderData: keepPreviousData,
    refetchInterval: (current) => {
      if (current.state.data?.items.some((run) => run.status === 'RUNNING')) return MOVING_MS;
      return scheduled ? ACTIVE_WORKFLOW_MS : false;
    },
  });
}

/** One workflow run with its tasks; polls while it is RUNNING (as the job detail's runs do). */
export function useWorkflowRun(workflowRunId: string | undefined) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.workflowRun(workflowRunId ?? ''),
    queryFn: () => data(client.workflowRuns.get(workflowRunId ?? '')),
    enabled: Boolean(workflowRunId),
    refetchInterval: (current) => (current.state.data?.status === 'RUNNING' ? MOVING_MS : false),
  });
}

export type WorkflowAction = 'pause' | 'resume' | 'trigger' | 'delete';

/** One action on one workflow; every workflow query is read again after it. */
export function useWorkflowAction() {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: string; action: WorkflowAction }): Promise<unknown> =>
      data<unknown>(client.workflows[action](id)),
    onSettled: () => queries.invalidateQueries({ queryKey: keys.workflows }),
  });
}

export type WorkflowRunAction = 'retry' | 'cancel';

/** Retry (a FAILED run's failed tasks and what depends on them) or cancel a workflow run. */
export function useWorkflowRunAction() {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: ({
      workflowRunId,
      action,
    }: {
      workflowRunId: string;
      action: WorkflowRunAction;
    }): Promise<WorkflowRun> => data(client.workflowRuns[action](workflowRunId)),
    onSettled: () => queries.invalidateQueries({ queryKey: keys.workflows }),
  });
}
