/**
 * Workflows: the list, one workflow and its runs, one workflow run, and the actions on them
 * (trigger, pause, resume, delete; retry and cancel a run). Types: workflow-types.ts (local until
 * the generated client has the workflow routes).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSession } from '../session.tsx';
import { keys } from './keys.ts';
import { workflowCall } from './workflow-http.ts';
import type {
  CancelledWorkflowRun,
  RetriedWorkflowRun,
  TriggeredWorkflow,
  Workflow,
  WorkflowListQuery,
  WorkflowPage,
  WorkflowRun,
  WorkflowRunPage,
} from './workflow-types.ts';

/** A workflow run still moving is read again this often (as a job's runs are). */
const MOVING_MS = 2_000;
/** While the workflow may start runs on its schedule, its runs list looks for new ones this often. */
const ACTIVE_WORKFLOW_MS = 10_000;

const byId = (id: string) => ({ path: { id } });
const byRunId = (workflowRunId: string) => ({ path: { workflowRunId } });

export function useWorkflowList(query: WorkflowListQuery) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.workflowList(query),
    queryFn: () => workflowCall<WorkflowPage>(client, 'GET', '/v1/workflows', { params: { query: { ...query } } }),
    placeholderData: keepPreviousData,
  });
}

export function useWorkflow(id: string) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.workflow(id),
    queryFn: () => workflowCall<Workflow>(client, 'GET', '/v1/workflows/{id}', { params: byId(id) }),
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
    queryFn: () =>
      workflowCall<WorkflowRunPage>(client, 'GET', '/v1/workflows/{id}/runs', {
        params: { ...byId(id), query: { ...query } },
      }),
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
    queryFn: () =>
      workflowCall<WorkflowRun>(client, 'GET', '/v1/workflow-runs/{workflowRunId}', {
        params: byRunId(workflowRunId ?? ''),
      }),
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
    mutationFn: ({ id, action }: { id: string; action: WorkflowAction }): Promise<TriggeredWorkflow | unknown> =>
      action === 'delete'
        ? workflowCall(client, 'DELETE', '/v1/workflows/{id}', { params: byId(id) })
        : workflowCall(client, 'POST', `/v1/workflows/{id}/${action}`, { params: byId(id) }),
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
    }): Promise<RetriedWorkflowRun | CancelledWorkflowRun> =>
      workflowCall(client, 'POST', `/v1/workflow-runs/{workflowRunId}/${action}`, { params: byRunId(workflowRunId) }),
    onSettled: () => queries.invalidateQueries({ queryKey: keys.workflows }),
  });
}
