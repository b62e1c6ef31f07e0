/**
 * The Chronos API client: a thin layer on openapi-fetch over the types generated from the OpenAPI
 * document (schema.ts). The token on every call, bounded retries of refused calls (retry.ts),
 * listings as async iterators (pages.ts) and errors as values (errors.ts). Fetch only: Node ≥ 20
 * and browsers.
 */
import createClient, { type Client } from 'openapi-fetch';
import { type ApiError, apiErrorOf, type ChronosResult, networkError } from './errors.ts';
import type { FlowControlState, JobLaneFields, LaneRequestFields, Lanes, LanesPaths, RunLaneFields } from './lanes.ts';
import { type Page, pages } from './pages.ts';
import { type RetryPolicy, retryingFetch } from './retry.ts';
import type { components, operations, paths } from './schema.ts';

type Schemas = components['schemas'];
// `& …LaneFields` (lanes.ts): issue #22's fields until the regenerated schema.ts has them.
export type Job = Schemas['Job'] & JobLaneFields;
export type Run = Schemas['Run'] & RunLaneFields;
export type JobPage = Omit<Schemas['JobPage'], 'items'> & { items: Job[] };
export type RunPage = Omit<Schemas['RunPage'], 'items'> & { items: Run[] };
export type CreateJob = Schemas['CreateJob'] & LaneRequestFields;
export type UpdateJob = Schemas['UpdateJob'] & LaneRequestFields;
export type SigningSecret = Schemas['SigningSecret'];
export type MonitoringStats = Schemas['MonitoringStats'];
/** `lanes`: each priority's queues, when the API reports them (issue #22). */
export type MonitoringSystem = Schemas['MonitoringSystem'] & { lanes?: Lanes };
export type MonitoringTimeseries = Schemas['MonitoringTimeseries'];
export type Health = Schemas['Health'];
export type PreviewScheduleBody = Schemas['PreviewSchedule'];
export type ScheduleOccurrences = Schemas['ScheduleOccurrences'];
export type CallbackState = Schemas['CallbackState'];
export type CallbackHeartbeat = Schemas['CallbackHeartbeat'];
export type CallbackHeartbeatAnswer = Schemas['CallbackHeartbeatAnswer'];
export type CallbackComplete = Schemas['CallbackComplete'];
export type Workflow = Schemas['Workflow'];
export type WorkflowSummary = Schemas['WorkflowPage']['items'][number];
export type WorkflowPage = Schemas['WorkflowPage'];
export type CreateWorkflow = Schemas['CreateWorkflow'];
export type UpdateWorkflow = Schemas['UpdateWorkflow'];
export type WorkflowRun = Schemas['WorkflowRun'];
export type WorkflowRunSummary = Schemas['WorkflowRunSummary'];
export type WorkflowRunPage = Schemas['WorkflowRunPage'];

type QueryOf<K extends keyof operations> = operations[K]['parameters']['query'];
export type JobListQuery = NonNullable<QueryOf<'listJobs'>>;
export type RunListQuery = NonNullable<QueryOf<'listRuns'>>;
export type DeadLetterQuery = NonNullable<QueryOf<'listDeadLetters'>>;
export type StatsQuery = NonNullable<QueryOf<'monitoringStats'>>;
export type TimeseriesQuery = NonNullable<QueryOf<'monitoringTimeseries'>>;
export type WorkflowListQuery = NonNullable<QueryOf<'listWorkflows'>>;
export type WorkflowRunListQuery = NonNullable<QueryOf<'listWorkflowRuns'>>;

export interface ChronosClientOptions {
  /** The API's base URL, e.g. `http://localhost:3000` or `https://<api>.execute-api.<region>.amazonaws.com/dev`. */
  baseUrl: string;
  /** A tenant's API token (or the admin token); sent as `Authorization: Bearer <token>`. */
  token?: string;
  retry?: RetryPolicy;
  /** The fetch to call (default globalThis.fetch): a test double, a proxy-aware fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers on every call (e.g. a User-Agent). */
  headers?: Record<string, string>;
}

/** Optional on creating calls: a retry with the same key is answered with what the first created. */
export interface IdempotencyOptions {
  idempotencyKey?: string;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** openapi-fetch's answer as a ChronosResult; a call that got no answer becomes a NETWORK error. */
async function settle<T>(call: () => Promise<Answer<T>>): Promise<ChronosResult<T>> {
  let answer: Answer<T>;
  try {
    answer = await call();
  } catch (cause) {
    return { error: networkError(cause) };
  }
  if (answer.response.ok) return { data: answer.data as T, response: answer.response };
  return { error: apiErrorOf(answer.response, answer.error), response: answer.response };
}

/**
 * A job or run answer typed with issue #22's fields (lanes.ts): the generated answer types lack
 * them until schema.ts is regenerated; then these casts are no-ops and can go.
 */
const asJob = (result: Promise<ChronosResult<Schemas['Job']>>) => result as Promise<ChronosResult<Job>>;
const asRun = (result: Promise<ChronosResult<Schemas['Run']>>) => result as Promise<ChronosResult<Run>>;

/** `If-Match` from a version (3) or an ETag as the API gave it (`"3"`). */
function ifMatch(version: number | string): string {
  return typeof version === 'number' ? `"${version}"` : version;
}

export function createChronosClient(options: ChronosClientOptions) {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  // `& LanesPaths`: GET /v1/flow-control/{key} until the regenerated paths have it (lanes.ts).
  const http: Client<paths & LanesPaths> = createClient<paths & LanesPaths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: retryingFetch(baseFetch, options.retry),
    headers: {
      ...options.headers,
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    },
  });
  const path = (id: string) => ({ path: { id } });

  const listJobsPage = (query: JobListQuery = {}) =>
    settle(() => http.GET('/v1/jobs', { params: { query } })) as Promise<ChronosResult<JobPage>>;
  const listRunsPage = (jobId: string, query: RunListQuery = {}) =>
    settle(() => http.GET('/v1/jobs/{id}/runs', { params: { ...path(jobId), query } })) as Promise<
      ChronosResult<RunPage>
    >;
  const listDeadLettersPage = (query: DeadLetterQuery = {}) =>
    settle(() => http.GET('/v1/dead-letters', { params: { query } })) as Promise<ChronosResult<RunPage>>;
  const listWorkflowsPage = (query: WorkflowListQuery = {}) =>
    settle(() => http.GET('/v1/workflows', { params: { query } }));
  const listWorkflowRunsPage = (workflowId: string, query: WorkflowRunListQuery = {}) =>
    settle(() => http.GET('/v1/workflows/{id}/runs', { params: { ...path(workflowId), query } }));
  const workflowRunPath = (workflowRunId: string) => ({ path: { workflowRunId } });
  const idempotencyHeader = (opts: IdempotencyOptions) =>
    opts.idempotencyKey === undefined ? undefined : { 'Idempotency-Key': opts.idempotencyKey };
  const retryRun = (runId: string) =>
    asRun(settle(() => http.POST('/v1/runs/{runId}/retry', { params: { path: { runId } } })));

  return {
    /** The openapi-fetch client underneath, typed by the document, for anything not wrapped here. */
    http,
    jobs: {
      create: (body: CreateJob, opts: IdempotencyOptions = {}) =>
        asJob(
          settle(() =>
            http.POST('/v1/jobs', {
              body,
              params: {
                header: opts.idempotencyKey === undefined ? undefined : { 'Idempotency-Key': opts.idempotencyKey },
              },
            }),
          ),
        ),
      /** Every job matching `query`, page after page: `for await (const job of client.jobs.list())`. */
      list: (query: Omit<JobListQuery, 'cursor'> & { cursor?: string } = {}): AsyncGenerator<Job> =>
        pages<Job>(
          (cursor) => listJobsPage({ ...query, ...(cursor ? { cursor } : {}) }) as Promise<ChronosResult<Page<Job>>>,
          query.cursor,
        ),
      /** One page: `{ items, cursor }`. */
      listPage: listJobsPage,
      get: (id: string) => asJob(settle(() => http.GET('/v1/jobs/{id}', { params: path(id) }))),
      /** `version`: the job's version or ETag, sent as If-Match (409 when the job changed since). */
      update: (id: string, body: UpdateJob, version: number | string) =>
        asJob(
          settle(() =>
            http.PATCH('/v1/jobs/{id}', { params: { ...path(id), header: { 'If-Match': ifMatch(version) } }, body }),
          ),
        ),
      pause: (id: string) => asJob(settle(() => http.POST('/v1/jobs/{id}/pause', { params: path(id) }))),
      resume: (id: string) => asJob(settle(() => http.POST('/v1/jobs/{id}/resume', { params: path(id) }))),
      trigger: (id: string, opts: IdempotencyOptions = {}) =>
        asRun(
          settle(() =>
            http.POST('/v1/jobs/{id}/trigger', {
              params: {
                ...path(id),
                header: opts.idempotencyKey === undefined ? undefined : { 'Idempotency-Key': opts.idempotencyKey },
              },
            }),
          ),
        ),
      cancel: (id: string) => asJob(settle(() => http.DELETE('/v1/jobs/{id}', { params: path(id) }))),
      /** Every run of the job matching `query`, newest first, page after page. */
      runs: (jobId: string, query: RunListQuery = {}): AsyncGenerator<Run> =>
        pages<Run>(
          (cursor) =>
            listRunsPage(jobId, { ...query, ...(cursor ? { cursor } : {}) }) as Promise<ChronosResult<Page<Run>>>,
          query.cursor,
        ),
      runsPage: listRunsPage,
    },
    /** Workflows (tasks with dependencies, docs/workflows.md): ids `wf<ULID>`. */
    workflows: {
      create: (body: CreateWorkflow, opts: IdempotencyOptions = {}) =>
        settle(() => http.POST('/v1/workflows', { body, params: { header: idempotencyHeader(opts) } })),
      /** Every workflow, in creation order, page after page (each without its tasks, with `taskCount`). */
      list: (query: WorkflowListQuery = {}): AsyncGenerator<WorkflowSummary> =>
        pages<WorkflowSummary>(
          (cursor) =>
            listWorkflowsPage({ ...query, ...(cursor ? { cursor } : {}) }) as Promise<
              ChronosResult<Page<WorkflowSummary>>
            >,
          query.cursor,
        ),
      listPage: listWorkflowsPage,
      /** The workflow with its current version's tasks. */
      get: (id: string) => settle(() => http.GET('/v1/workflows/{id}', { params: path(id) })),
      /** `version`: the workflow's version or ETag, sent as If-Match; `tasks` make a new version. */
      update: (id: string, body: UpdateWorkflow, version: number | string) =>
        settle(() =>
          http.PATCH('/v1/workflows/{id}', {
            params: { ...path(id), header: { 'If-Match': ifMatch(version) } },
            body,
          }),
        ),
      pause: (id: string) => settle(() => http.POST('/v1/workflows/{id}/pause', { params: path(id) })),
      resume: (id: string) => settle(() => http.POST('/v1/workflows/{id}/resume', { params: path(id) })),
      /** Cancels the workflow (kept as history); idempotent. */
      delete: (id: string) => settle(() => http.DELETE('/v1/workflows/{id}', { params: path(id) })),
      /** A workflow run now: 202 with the run; the same `idempotencyKey` answers the same run. */
      trigger: (id: string, opts: IdempotencyOptions = {}) =>
        settle(() =>
          http.POST('/v1/workflows/{id}/trigger', { params: { ...path(id), header: idempotencyHeader(opts) } }),
        ),
      /** Every run of the workflow, newest first, page after page (each with `taskCounts`). */
      runs: (workflowId: string, query: WorkflowRunListQuery = {}): AsyncGenerator<WorkflowRunSummary> =>
        pages<WorkflowRunSummary>(
          (cursor) =>
            listWorkflowRunsPage(workflowId, { ...query, ...(cursor ? { cursor } : {}) }) as Promise<
              ChronosResult<Page<WorkflowRunSummary>>
            >,
          query.cursor,
        ),
      runsPage: listWorkflowRunsPage,
    },
    workflowRuns: {
      /** A workflow run with each task's state, in definition order. */
      get: (workflowRunId: string) =>
        settle(() => http.GET('/v1/workflow-runs/{workflowRunId}', { params: workflowRunPath(workflowRunId) })),
      /** A new round: the failed tasks and what depends on them run again (409 while a task still goes). */
      retry: (workflowRunId: string) =>
        settle(() => http.POST('/v1/workflow-runs/{workflowRunId}/retry', { params: workflowRunPath(workflowRunId) })),
      /** Tasks not started end CANCELLED, tasks in flight are soft-cancelled (409 on an ended run). */
      cancel: (workflowRunId: string) =>
        settle(() => http.POST('/v1/workflow-runs/{workflowRunId}/cancel', { params: workflowRunPath(workflowRunId) })),
    },
    runs: {
      /** One run, with the latest checkpoint its worker sent (`checkpoint`, null when none). */
      get: (runId: string) => asRun(settle(() => http.GET('/v1/runs/{runId}', { params: { path: { runId } } }))),
      /** Re-drive a dead-lettered run as a new attempt. */
      retry: retryRun,
      /** Cancel a run: at once before its call; an async run in flight is asked to stop (soft cancel). */
      cancel: (runId: string) =>
        asRun(settle(() => http.POST('/v1/runs/{runId}/cancel', { params: { path: { runId } } }))),
    },
    /**
     * What an async job's worker calls, with the token of its call's `Chronos-Callback-Url` (the
     * last path segment): the only credential these routes need, no API token.
     */
    callbacks: {
      state: (token: string) => settle(() => http.GET('/v1/callbacks/{token}', { params: { path: { token } } })),
      heartbeat: (token: string, body: CallbackHeartbeat = {}) =>
        settle(() => http.POST('/v1/callbacks/{token}/heartbeat', { params: { path: { token } }, body })),
      complete: (token: string, body: CallbackComplete) =>
        settle(() => http.POST('/v1/callbacks/{token}/complete', { params: { path: { token } }, body })),
    },
    deadLetters: {
      list: (query: DeadLetterQuery = {}): AsyncGenerator<Run> =>
        pages<Run>(
          (cursor) =>
            listDeadLettersPage({ ...query, ...(cursor ? { cursor } : {}) }) as Promise<ChronosResult<Page<Run>>>,
          query.cursor,
        ),
      listPage: listDeadLettersPage,
      redrive: retryRun,
    },
    signingSecrets: {
      rotate: (body: { overlapHours?: number } = {}) => settle(() => http.POST('/v1/signing-secrets', { body })),
      list: () => settle(() => http.GET('/v1/signing-secrets')),
    },
    schedules: {
      /** A schedule's next occurrences, computed by the server as the scanner would, before any job exists. */
      preview: (body: PreviewScheduleBody) => settle(() => http.POST('/v1/schedules/preview', { body })),
    },
    /** Flow control per key (issue #22): a key's limits and its runs in flight and waiting. */
    flowControl: {
      /** The key's state; the key is URL-encoded into the path (`stripe/eu` → `stripe%2Feu`). 404 for a key no job wrote. */
      get: (key: string): Promise<ChronosResult<FlowControlState>> =>
        settle(() => http.GET('/v1/flow-control/{key}', { params: { path: { key } } })),
    },
    monitoring: {
      stats: (query: StatsQuery = {}) => settle(() => http.GET('/v1/monitoring/stats', { params: { query } })),
      /** Runs per minute (1h) or per quarter hour (24h), every step present: the stats' window as a chart's points. */
      timeseries: (query: TimeseriesQuery = {}) =>
        settle(() => http.GET('/v1/monitoring/timeseries', { params: { query } })),
      system: () => settle(() => http.GET('/v1/monitoring/system')) as Promise<ChronosResult<MonitoringSystem>>,
    },
    /**
     * Liveness, or with the admin token the full check; a failing check answers 503 with the
     * Health body, returned as `data` (it is an answer about health, not a failed call).
     */
    health: async (query: { deep?: 'true' | 'false' } = {}): Promise<ChronosResult<Health>> => {
      // Not retried: a 503 here is the answer (a failing check), not a refusal.
      const call = () => http.GET('/v1/health', { params: { query }, fetch: baseFetch });
      let answer: Awaited<ReturnType<typeof call>>;
      try {
        answer = await call();
      } catch (cause) {
        return { error: networkError(cause) };
      }
      if (answer.response.status === 503) return { data: answer.error as Health, response: answer.response };
      if (answer.response.ok) return { data: answer.data as Health, response: answer.response };
      return { error: apiErrorOf(answer.response, answer.error), response: answer.response };
    },
    openapi: () => settle(() => http.GET('/v1/openapi.json')),
  };
}

export type ChronosClient = ReturnType<typeof createChronosClient>;
export type { ApiError };
