/**
 * The HTTP API as data: API Gateway resources (CDK) and the local runtime's router are both built
 * from this table, and each route names the handler module under functions/handlers/api/.
 */
import {
  DEAD_LETTER_QUERY,
  HEALTH_QUERY,
  JOB_LIST_QUERY,
  type QueryParameter,
  RUN_LIST_QUERY,
  STATS_QUERY,
  TIMESERIES_QUERY,
  WORKFLOW_LIST_QUERY,
  WORKFLOW_RUN_LIST_QUERY,
} from './query-schemas.ts';

export type TableAccess = 'read' | 'readWrite';

/** Request headers a handler reads (described in openapi/headers.ts). */
export type RequestHeader = 'Idempotency-Key' | 'If-Match';
/** Response headers a handler sets (described in openapi/headers.ts). */
export type ResponseHeader = 'ETag' | 'Location' | 'Idempotent-Replayed' | 'Cache-Control';

/** One answer a route gives that is not an error. */
export interface RouteAnswer {
  status: 200 | 201 | 202 | 503;
  /** JSON Schema under schemas/ the body matches. */
  schema: string;
  description: string;
  /** Headers this answer always carries. */
  headers?: readonly ResponseHeader[];
  /** Headers it carries only sometimes (e.g. on a replay). */
  optionalHeaders?: readonly ResponseHeader[];
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway resource path, with `{param}` placeholders. */
  path: string;
  /** File name (without extension) under functions/handlers/api/. */
  handler: string;
  /** JSON Schema under schemas/ that API Gateway and the handler validate the body with. */
  bodySchema?: string;
  /** False only for endpoints that must answer without a token (health checks, the OpenAPI document, callbacks). */
  authorized: boolean;
  /**
   * On a public route: the credential it takes instead of a bearer token. `callback-token`: the
   * path's `{token}` (core/async/callback-token.ts, HMAC-bound to tenant, job, occurrence and
   * attempt) is the only credential, since the worker that calls back may hold no API token.
   */
  credential?: 'callback-token';
  /** What the handler touches; CDK grants exactly this. */
  access: {
    jobs?: TableAccess;
    runs?: TableAccess;
    sendToDispatchQueue?: boolean;
    /** The workflow-runs table (core/workflows/stored.ts). */
    workflowRuns?: TableAccess;
    /** The metrics table (run aggregates, job-status counters, scanner heartbeats). */
    metrics?: TableAccess;
    /** sqs:GetQueueAttributes on the dispatch queue and its dead-letter queue (depths), nothing else. */
    readQueueAttributes?: boolean;
    /**
     * cloudwatch:GetMetricData: those two queues' AWS/SQS ApproximateAgeOfOldestMessage (named
     * after the URLs readQueueAttributes sets). GetMetricData takes no resource, so this is Resource '*'.
     */
    readQueueAgeMetric?: boolean;
    /** The tenants table (quotas; create-rate bucket and active-job counter when readWrite). */
    tenants?: TableAccess;
    /** kms:GenerateDataKey on the secrets key: the route seals secret target headers. */
    sealSecrets?: boolean;
    /**
     * dynamodb:Scan and Query on the tenants table, of the key attributes and the admitted-job
     * counts only (Select SPECIFIC_ATTRIBUTES, projection within pk, sk and admittedJobs): the
     * tenants' ids, for the admin view summed over every tenant, and the jobs each admission counted.
     */
    listTenantIds?: boolean;
    /**
     * kms:Decrypt on the secrets key, only under the callback keys' encryption context
     * (adapters/dynamodb/callback-key-store.ts): opens the keys that check callback tokens, never
     * a tenant's secrets.
     */
    openCallbackKeys?: boolean;
    /**
     * sqs:SendMessage on the failure-notice queue (the notifier's): the route may end a workflow
     * run FAILED (a retry whose tasks cannot start), whose end notifies its onFailure URL.
     */
    sendFailureNotices?: boolean;
  };
}

/** A route of the public API, with what the OpenAPI document (openapi/) says about it. */
export interface DocumentedRoute extends Route {
  /** One line for the OpenAPI document; docs/api.md has the rest. */
  summary: string;
  /** Groups routes in the OpenAPI document. */
  tag: 'Jobs' | 'Workflows' | 'Runs' | 'Callbacks' | 'Signing secrets' | 'Monitoring';
  /** On a public route: a bearer token changes the answer (health: the admin token gets the full check). */
  tokenOptional?: boolean;
  /** The query parameters the handler accepts (query-schemas.ts); it refuses any other. */
  query?: readonly QueryParameter[];
  /** The request headers the handler reads. */
  requestHeaders?: readonly RequestHeader[];
  /** What the handler answers when it succeeds. */
  answers: readonly RouteAnswer[];
  /**
   * The error statuses (the Chronos error shape, schemas/error.json) the handler answers with; the
   * gateway's 401 and 403 of authorized routes are added by the document, 5xx fall under `default`.
   */
  errors: readonly (400 | 401 | 403 | 404 | 409 | 422 | 428 | 429)[];
}

/** What each callback route touches (see the routes below). */
const CALLBACK_ACCESS: Route['access'] = {
  jobs: 'readWrite',
  runs: 'readWrite',
  tenants: 'read',
  openCallbackKeys: true,
};

export const ROUTES: readonly DocumentedRoute[] = [
  {
    method: 'POST',
    path: '/v1/jobs',
    handler: 'create-job',
    bodySchema: 'create-job.json',
    authorized: true,
    summary: 'Create a job',
    tag: 'Jobs',
    requestHeaders: ['Idempotency-Key'],
    answers: [
      {
        status: 201,
        schema: 'job.json',
        description: 'The new job (or, replayed, the one the same Idempotency-Key created)',
        headers: ['Location'],
        optionalHeaders: ['Idempotent-Replayed'],
      },
    ],
    errors: [400, 409, 422, 429],
    access: {
      jobs: 'readWrite',
      runs: 'readWrite',
      sendToDispatchQueue: true,
      metrics: 'readWrite',
      tenants: 'readWrite',
      sealSecrets: true,
    },
  },
  {
    method: 'GET',
    path: '/v1/jobs/{id}',
    handler: 'get-job',
    authorized: true,
    summary: 'Get a job, its next occurrences and its latest run',
    tag: 'Jobs',
    answers: [{ status: 200, schema: 'job.json', description: 'The job, with `upcoming`', headers: ['ETag'] }],
    errors: [404],
    access: { jobs: 'read', runs: 'read' },
  },
  {
    method: 'GET',
    path: '/v1/jobs/{id}/runs',
    handler: 'list-runs',
    authorized: true,
    summary: "List a job's runs, newest first",
    tag: 'Runs',
    query: RUN_LIST_QUERY,
    answers: [{ status: 200, schema: 'run-page.json', description: 'A page of runs' }],
    errors: [400, 404],
    access: { jobs: 'read', runs: 'read' },
  },
  {
    method: 'GET',
    path: '/v1/health',
    handler: 'health',
    authorized: false,
    summary: 'Liveness; the full check with the admin token',
    tag: 'Monitoring',
    tokenOptional: true,
    query: HEALTH_QUERY,
    answers: [
      { status: 200, schema: 'health.json', description: 'Up (liveness), or every check passed' },
      { status: 503, schema: 'health.json', description: 'The full check found a failing dependency' },
    ],
    errors: [401],
    // Probes every table the executor and the scanner use, the dispatch queue's attributes and
    // the scanner heartbeats (metrics table).
    access: { jobs: 'read', runs: 'read', tenants: 'read', metrics: 'read', readQueueAttributes: true },
  },
  {
    method: 'GET',
    path: '/v1/dead-letters',
    handler: 'list-dead-letters',
    authorized: true,
    summary: "List the tenant's dead-lettered runs, newest first",
    tag: 'Runs',
    query: DEAD_LETTER_QUERY,
    answers: [{ status: 200, schema: 'run-page.json', description: 'A page of dead-lettered runs' }],
    errors: [400],
    access: { runs: 'read' },
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}/retry',
    handler: 'retry-run',
    authorized: true,
    summary: 'Re-drive a dead-lettered run as a new attempt, now',
    tag: 'Runs',
    answers: [{ status: 202, schema: 'run.json', description: 'The new attempt' }],
    errors: [404, 409, 429],
    access: { jobs: 'read', runs: 'readWrite', sendToDispatchQueue: true, tenants: 'readWrite' },
  },
  {
    method: 'GET',
    path: '/v1/runs/{runId}',
    handler: 'get-run',
    authorized: true,
    summary: 'Get a run, with its latest checkpoint',
    tag: 'Runs',
    answers: [{ status: 200, schema: 'run.json', description: 'The run, with `checkpoint`' }],
    errors: [404],
    // The job: its SLA judges the run's timings, as in its run list.
    access: { jobs: 'read', runs: 'read' },
  },
  // A soft cancel (core/use-cases/async/cancel-run.ts): the run's own conditional write (runs
  // readWrite), and for an `overlap: "forbid"` job its in-flight marker freed or kept for a retry
  // (jobs readWrite: conditional updates of the job item; its retry policy is read).
  {
    method: 'POST',
    path: '/v1/runs/{runId}/cancel',
    handler: 'cancel-run',
    authorized: true,
    summary: 'Cancel a run: at once before its call, softly for an async run in flight',
    tag: 'Runs',
    answers: [
      { status: 200, schema: 'run.json', description: 'The run: CANCELLED, or RUNNING with the cancel requested' },
    ],
    errors: [404, 409],
    access: { jobs: 'readWrite', runs: 'readWrite' },
  },
  // Callbacks of async runs (core/use-cases/async/callbacks.ts): public, the path's token is the
  // credential. The token is opened with the callback keys (tenants read: their sealed item;
  // openCallbackKeys: KMS under their context only); the run is written conditionally (runs
  // readWrite); an end reads the job's retry policy and moves an `overlap: "forbid"` job's
  // in-flight marker (jobs readWrite).
  {
    method: 'GET',
    path: '/v1/callbacks/{token}',
    handler: 'callback-state',
    authorized: false,
    credential: 'callback-token',
    summary: "An async run's attempt, cancel request and the occurrence's latest checkpoint",
    tag: 'Callbacks',
    answers: [{ status: 200, schema: 'callback-state.json', description: 'The state the worker resumes from' }],
    errors: [401, 404, 409],
    access: CALLBACK_ACCESS,
  },
  {
    method: 'POST',
    path: '/v1/callbacks/{token}/heartbeat',
    handler: 'callback-heartbeat',
    bodySchema: 'callback-heartbeat.json',
    authorized: false,
    credential: 'callback-token',
    summary: 'Prove the worker alive, with progress and a checkpoint',
    tag: 'Callbacks',
    answers: [
      { status: 200, schema: 'callback-heartbeat-answer.json', description: 'The new deadline, and whether to stop' },
    ],
    errors: [400, 401, 404, 409],
    access: CALLBACK_ACCESS,
  },
  {
    method: 'POST',
    path: '/v1/callbacks/{token}/complete',
    handler: 'callback-complete',
    bodySchema: 'callback-complete.json',
    authorized: false,
    credential: 'callback-token',
    summary: "Report an async run's end (idempotent)",
    tag: 'Callbacks',
    answers: [{ status: 200, schema: 'run.json', description: 'The run as it ended (the first result, for a repeat)' }],
    errors: [400, 401, 404, 409],
    access: CALLBACK_ACCESS,
  },
  // Job management (routes that change a job's status also move its tenant's job-status counters:
  // metrics readWrite). Pause and reschedule discard runs not yet claimed (runs readWrite); resume,
  // reschedule and trigger may enqueue runs at once; cancel only writes the job (the executor
  // cancels its queued runs when their messages arrive). Runs created outside the schedule
  // (trigger, PATCH due at once, resume catch-up, re-drive) take from the tenant's trigger bucket
  // after reading its quotas: tenants readWrite.
  {
    method: 'GET',
    path: '/v1/jobs',
    handler: 'list-jobs',
    authorized: true,
    // The runs: each listed job's latest (one Query of one item per job).
    access: { jobs: 'read', runs: 'read' },
    summary: "List the tenant's jobs",
    tag: 'Jobs',
    query: JOB_LIST_QUERY,
    answers: [{ status: 200, schema: 'job-page.json', description: 'A page of jobs' }],
    errors: [400],
  },
  {
    method: 'PATCH',
    path: '/v1/jobs/{id}',
    handler: 'update-job',
    bodySchema: 'update-job.json',
    authorized: true,
    summary: "Change a job's name, target, schedule, policies or timeout",
    tag: 'Jobs',
    requestHeaders: ['If-Match'],
    answers: [{ status: 200, schema: 'job.json', description: 'The changed job', headers: ['ETag'] }],
    errors: [400, 404, 409, 428, 429],
    access: {
      jobs: 'readWrite',
      runs: 'readWrite',
      sendToDispatchQueue: true,
      tenants: 'readWrite',
      sealSecrets: true,
    },
  },
  {
    method: 'DELETE',
    path: '/v1/jobs/{id}',
    handler: 'cancel-job',
    authorized: true,
    summary: 'Cancel a job (kept as history)',
    tag: 'Jobs',
    answers: [{ status: 200, schema: 'job.json', description: 'The CANCELLED job', headers: ['ETag'] }],
    errors: [404, 409],
    // runs: an async job's runs in flight are asked to stop (use-cases/async/cancel-run.ts).
    access: { jobs: 'readWrite', metrics: 'readWrite', runs: 'readWrite' },
  },
  {
    method: 'POST',
    path: '/v1/jobs/{id}/pause',
    handler: 'pause-job',
    authorized: true,
    summary: 'Pause an ACTIVE job',
    tag: 'Jobs',
    answers: [{ status: 200, schema: 'job.json', description: 'The PAUSED job', headers: ['ETag'] }],
    errors: [404, 409],
    access: { jobs: 'readWrite', runs: 'readWrite', metrics: 'readWrite' },
  },
  {
    method: 'POST',
    path: '/v1/jobs/{id}/resume',
    handler: 'resume-job',
    authorized: true,
    summary: 'Resume a PAUSED job',
    tag: 'Jobs',
    answers: [{ status: 200, schema: 'job.json', description: 'The ACTIVE job', headers: ['ETag'] }],
    errors: [404, 409, 429],
    access: {
      jobs: 'readWrite',
      runs: 'readWrite',
      sendToDispatchQueue: true,
      metrics: 'readWrite',
      tenants: 'readWrite',
    },
  },
  {
    method: 'POST',
    path: '/v1/jobs/{id}/trigger',
    handler: 'trigger-job',
    authorized: true,
    summary: 'Run a job now, once, outside its schedule',
    tag: 'Jobs',
    requestHeaders: ['Idempotency-Key'],
    answers: [
      {
        status: 202,
        schema: 'run.json',
        description: 'The new run (or, replayed, the one the same Idempotency-Key created)',
        optionalHeaders: ['Idempotent-Replayed'],
      },
    ],
    errors: [400, 404, 409, 429],
    access: { jobs: 'read', runs: 'readWrite', sendToDispatchQueue: true, tenants: 'readWrite' },
  },
  // Workflow definitions (core/workflows/stored.ts): heads and task items are jobs-table items, so
  // each route is granted what the job route it mirrors is. A workflow counts as one job against
  // the active-job quota (create: tenants readWrite); a scheduled one is created, rescheduled,
  // paused and resumed through the job paths (runs readWrite, the dispatch queue, the job-status
  // counters: metrics readWrite).
  {
    method: 'POST',
    path: '/v1/workflows',
    handler: 'create-workflow',
    bodySchema: 'create-workflow.json',
    authorized: true,
    summary: 'Create a workflow',
    tag: 'Workflows',
    requestHeaders: ['Idempotency-Key'],
    answers: [
      {
        status: 201,
        schema: 'workflow.json',
        description: 'The new workflow (or, replayed, the one the same Idempotency-Key created)',
        headers: ['Location', 'ETag'],
        optionalHeaders: ['Idempotent-Replayed'],
      },
    ],
    errors: [400, 409, 422, 429],
    access: {
      jobs: 'readWrite',
      runs: 'readWrite',
      sendToDispatchQueue: true,
      metrics: 'readWrite',
      tenants: 'readWrite',
      sealSecrets: true,
    },
  },
  {
    method: 'GET',
    path: '/v1/workflows',
    handler: 'list-workflows',
    authorized: true,
    access: { jobs: 'read' },
    summary: "List the tenant's workflows",
    tag: 'Workflows',
    query: WORKFLOW_LIST_QUERY,
    answers: [{ status: 200, schema: 'workflow-page.json', description: 'A page of workflows' }],
    errors: [400],
  },
  {
    method: 'GET',
    path: '/v1/workflows/{id}',
    handler: 'get-workflow',
    authorized: true,
    access: { jobs: 'read' },
    summary: 'Get a workflow and its tasks',
    tag: 'Workflows',
    answers: [{ status: 200, schema: 'workflow.json', description: 'The workflow', headers: ['ETag'] }],
    errors: [404],
  },
  {
    method: 'PATCH',
    path: '/v1/workflows/{id}',
    handler: 'update-workflow',
    bodySchema: 'update-workflow.json',
    authorized: true,
    summary: "Change a workflow's name, schedule, policies or tasks (a new version)",
    tag: 'Workflows',
    requestHeaders: ['If-Match'],
    answers: [{ status: 200, schema: 'workflow.json', description: 'The changed workflow', headers: ['ETag'] }],
    errors: [400, 404, 409, 428, 429],
    access: {
      jobs: 'readWrite',
      runs: 'readWrite',
      sendToDispatchQueue: true,
      tenants: 'readWrite',
      sealSecrets: true,
    },
  },
  {
    method: 'DELETE',
    path: '/v1/workflows/{id}',
    handler: 'delete-workflow',
    authorized: true,
    summary: 'Cancel a workflow (kept as history)',
    tag: 'Workflows',
    answers: [{ status: 200, schema: 'workflow.json', description: 'The CANCELLED workflow', headers: ['ETag'] }],
    errors: [404, 409],
    access: { jobs: 'readWrite', metrics: 'readWrite' },
  },
  {
    method: 'POST',
    path: '/v1/workflows/{id}/pause',
    handler: 'pause-workflow',
    authorized: true,
    summary: 'Pause an ACTIVE workflow',
    tag: 'Workflows',
    answers: [{ status: 200, schema: 'workflow.json', description: 'The PAUSED workflow', headers: ['ETag'] }],
    errors: [404, 409],
    access: { jobs: 'readWrite', runs: 'readWrite', metrics: 'readWrite' },
  },
  {
    method: 'POST',
    path: '/v1/workflows/{id}/resume',
    handler: 'resume-workflow',
    authorized: true,
    summary: 'Resume a PAUSED workflow',
    tag: 'Workflows',
    answers: [{ status: 200, schema: 'workflow.json', description: 'The ACTIVE workflow', headers: ['ETag'] }],
    errors: [404, 409, 429],
    access: {
      jobs: 'readWrite',
      runs: 'readWrite',
      sendToDispatchQueue: true,
      metrics: 'readWrite',
      tenants: 'readWrite',
    },
  },
  // Workflow runs (core/use-cases/workflows/): a trigger starts one and its first tasks, retry and
  // cancel change one; task runs are ordinary runs (the runs table), sent to the dispatch queue.
  {
    method: 'POST',
    path: '/v1/workflows/{id}/trigger',
    handler: 'trigger-workflow',
    authorized: true,
    summary: 'Run a workflow now, outside its schedule',
    tag: 'Workflows',
    requestHeaders: ['Idempotency-Key'],
    answers: [
      {
        status: 202,
        schema: 'workflow-run.json',
        description:
          'The new workflow run, its first tasks started (or, replayed, the one the same Idempotency-Key started)',
        optionalHeaders: ['Idempotent-Replayed'],
      },
    ],
    errors: [400, 404, 409, 429],
    access: {
      jobs: 'read',
      runs: 'readWrite',
      workflowRuns: 'readWrite',
      sendToDispatchQueue: true,
      sendFailureNotices: true,
      tenants: 'readWrite',
    },
  },
  {
    method: 'GET',
    path: '/v1/workflows/{id}/runs',
    handler: 'list-workflow-runs',
    authorized: true,
    summary: "List a workflow's runs, newest first",
    tag: 'Workflows',
    query: WORKFLOW_RUN_LIST_QUERY,
    answers: [{ status: 200, schema: 'workflow-run-page.json', description: 'One page of runs' }],
    errors: [400, 404],
    access: { jobs: 'read', workflowRuns: 'read' },
  },
  {
    method: 'GET',
    path: '/v1/workflow-runs/{workflowRunId}',
    handler: 'get-workflow-run',
    authorized: true,
    summary: 'Get a workflow run with the state of each task',
    tag: 'Workflows',
    answers: [{ status: 200, schema: 'workflow-run.json', description: 'The workflow run' }],
    errors: [404],
    access: { runs: 'read', workflowRuns: 'read' },
  },
  {
    method: 'POST',
    path: '/v1/workflow-runs/{workflowRunId}/retry',
    handler: 'retry-workflow-run',
    authorized: true,
    summary: 'Run the failed tasks of a workflow run again, and what depends on them',
    tag: 'Workflows',
    answers: [{ status: 202, schema: 'workflow-run.json', description: 'The run in its new round' }],
    errors: [404, 409],
    // A run that ends here (a task that cannot start) frees its overlap marker and may be notified.
    access: {
      jobs: 'readWrite',
      runs: 'readWrite',
      workflowRuns: 'readWrite',
      sendToDispatchQueue: true,
      sendFailureNotices: true,
    },
  },
  {
    method: 'POST',
    path: '/v1/workflow-runs/{workflowRunId}/cancel',
    handler: 'cancel-workflow-run',
    authorized: true,
    summary: 'Cancel a workflow run: tasks not started end CANCELLED, tasks in flight are soft-cancelled',
    tag: 'Workflows',
    answers: [{ status: 202, schema: 'workflow-run.json', description: 'The CANCELLED run' }],
    errors: [404, 409],
    // The cancelled run frees its overlap marker (jobs); its tasks in flight are soft-cancelled (runs).
    access: { jobs: 'readWrite', runs: 'readWrite', workflowRuns: 'readWrite' },
  },
  // Signing secrets: the calling tenant's own (core/tenants/signing-secrets.ts). Rotation seals the
  // new secret (KMS GenerateDataKey) and writes it with the previous ones' expiry (tenants readWrite).
  {
    method: 'POST',
    path: '/v1/signing-secrets',
    handler: 'rotate-signing-secret',
    bodySchema: 'rotate-signing-secret.json',
    authorized: true,
    summary: 'Issue a new signing secret (its value is shown once)',
    tag: 'Signing secrets',
    answers: [
      {
        status: 201,
        schema: 'signing-secret.json',
        description: 'The new secret, with its value',
        headers: ['Cache-Control'],
      },
    ],
    errors: [400],
    access: { tenants: 'readWrite', sealSecrets: true },
  },
  {
    method: 'GET',
    path: '/v1/signing-secrets',
    handler: 'list-signing-secrets',
    authorized: true,
    summary: 'List the secrets that sign now (never a value)',
    tag: 'Signing secrets',
    answers: [{ status: 200, schema: 'signing-secret-list.json', description: 'The secrets signing now' }],
    errors: [],
    access: { tenants: 'read' },
  },
  // A schedule's occurrences before any job exists (the CLI and the console preview with it): pure
  // computation, no table, no queue.
  {
    method: 'POST',
    path: '/v1/schedules/preview',
    handler: 'preview-schedule',
    bodySchema: 'preview-schedule.json',
    authorized: true,
    summary: "List a schedule's next occurrences, before any job exists",
    tag: 'Jobs',
    answers: [{ status: 200, schema: 'schedule-occurrences.json', description: 'The occurrences, ascending' }],
    errors: [400],
    access: {},
  },
  // A flow-control key's limits (the ones a job or workflow naming it last wrote) and its runs now.
  {
    method: 'GET',
    path: '/v1/flow-control/{key}',
    handler: 'get-flow-control-key',
    authorized: true,
    summary: "A flow-control key's limits, runs in flight and runs waiting",
    tag: 'Jobs',
    answers: [{ status: 200, schema: 'flow-control-key.json', description: 'The key' }],
    errors: [404],
    access: { tenants: 'read' },
  },
  // Monitoring: tenant-scoped stats (the admin scope sees all), the system view for the admin scope.
  {
    method: 'GET',
    path: '/v1/monitoring/stats',
    handler: 'monitoring-stats',
    authorized: true,
    summary: "The caller's counts, rates and latency percentiles over a window",
    tag: 'Monitoring',
    query: STATS_QUERY,
    answers: [{ status: 200, schema: 'monitoring-stats.json', description: 'The stats' }],
    errors: [400],
    // The tenants' ids (a key-only Scan of the tenants table) name the job counters the admin view
    // sums; the admitted-job counts on the tenant items are the ACTIVE jobs' share (job-admissions.ts).
    access: { metrics: 'read', listTenantIds: true },
  },
  {
    method: 'GET',
    path: '/v1/monitoring/timeseries',
    handler: 'monitoring-timeseries',
    authorized: true,
    summary: "The caller's runs per minute (or quarter hour) over a window, with latency percentiles",
    tag: 'Monitoring',
    query: TIMESERIES_QUERY,
    answers: [{ status: 200, schema: 'monitoring-timeseries.json', description: 'The series, every step present' }],
    errors: [400],
    // Only the minute buckets, kept for all tenants under their own scope: no job counters, so no
    // tenant ids to list.
    access: { metrics: 'read' },
  },
  {
    method: 'GET',
    path: '/v1/monitoring/system',
    handler: 'monitoring-system',
    authorized: true,
    summary: 'Queues, scanner and executors (admin scope)',
    tag: 'Monitoring',
    answers: [{ status: 200, schema: 'monitoring-system.json', description: 'The system view' }],
    errors: [403],
    // runs: the deadline index, counted (the async runs in flight).
    access: { metrics: 'read', runs: 'read', readQueueAttributes: true, readQueueAgeMetric: true },
  },
  {
    method: 'GET',
    path: '/v1/openapi.json',
    handler: 'get-openapi',
    // The description of the API, for tools and code generators: public like the health route.
    authorized: false,
    summary: 'This OpenAPI 3.1 document',
    tag: 'Monitoring',
    answers: [{ status: 200, schema: 'openapi-document.json', description: 'The OpenAPI document' }],
    errors: [],
    access: {},
  },
];
