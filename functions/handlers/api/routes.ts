/**
 * The HTTP API as data: API Gateway resources (CDK) and the local runtime's router are both built
 * from this table, and each route names the handler module under functions/handlers/api/.
 */
export type TableAccess = 'read' | 'readWrite';

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** API Gateway resource path, with `{param}` placeholders. */
  path: string;
  /** File name (without extension) under functions/handlers/api/. */
  handler: string;
  /** JSON Schema under schemas/ that API Gateway and the handler validate the body with. */
  bodySchema?: string;
  /** False only for endpoints that must answer without a token (health checks). */
  authorized: boolean;
  /** What the handler touches; CDK grants exactly this. */
  access: {
    jobs?: TableAccess;
    runs?: TableAccess;
    sendToDispatchQueue?: boolean;
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
  };
}

export const ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/v1/jobs',
    handler: 'create-job',
    bodySchema: 'create-job.json',
    authorized: true,
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
    access: { jobs: 'read', runs: 'read' },
  },
  {
    method: 'GET',
    path: '/v1/jobs/{id}/runs',
    handler: 'list-runs',
    authorized: true,
    access: { jobs: 'read', runs: 'read' },
  },
  {
    method: 'GET',
    path: '/v1/health',
    handler: 'health',
    authorized: false,
    // Probes every table the executor and the scanner use, the dispatch queue's attributes and
    // the scanner heartbeats (metrics table).
    access: { jobs: 'read', runs: 'read', tenants: 'read', metrics: 'read', readQueueAttributes: true },
  },
  {
    method: 'GET',
    path: '/v1/dead-letters',
    handler: 'list-dead-letters',
    authorized: true,
    access: { runs: 'read' },
  },
  {
    method: 'POST',
    path: '/v1/runs/{runId}/retry',
    handler: 'retry-run',
    authorized: true,
    access: { jobs: 'read', runs: 'readWrite', sendToDispatchQueue: true },
  },
  // Job management (routes that change a job's status also move its tenant's job-status counters:
  // metrics readWrite). Pause and reschedule discard runs not yet claimed (runs readWrite); resume,
  // reschedule and trigger may enqueue runs at once; cancel only writes the job (the executor
  // cancels its queued runs when their messages arrive).
  { method: 'GET', path: '/v1/jobs', handler: 'list-jobs', authorized: true, access: { jobs: 'read' } },
  {
    method: 'PATCH',
    path: '/v1/jobs/{id}',
    handler: 'update-job',
    bodySchema: 'update-job.json',
    authorized: true,
    access: { jobs: 'readWrite', runs: 'readWrite', sendToDispatchQueue: true, tenants: 'read', sealSecrets: true },
  },
  {
    method: 'DELETE',
    path: '/v1/jobs/{id}',
    handler: 'cancel-job',
    authorized: true,
    access: { jobs: 'readWrite', metrics: 'readWrite' },
  },
  {
    method: 'POST',
    path: '/v1/jobs/{id}/pause',
    handler: 'pause-job',
    authorized: true,
    access: { jobs: 'readWrite', runs: 'readWrite', metrics: 'readWrite' },
  },
  {
    method: 'POST',
    path: '/v1/jobs/{id}/resume',
    handler: 'resume-job',
    authorized: true,
    access: { jobs: 'readWrite', runs: 'readWrite', sendToDispatchQueue: true, metrics: 'readWrite' },
  },
  {
    method: 'POST',
    path: '/v1/jobs/{id}/trigger',
    handler: 'trigger-job',
    authorized: true,
    access: { jobs: 'read', runs: 'readWrite', sendToDispatchQueue: true },
  },
  // Signing secrets: the calling tenant's own (core/tenants/signing-secrets.ts). Rotation seals the
  // new secret (KMS GenerateDataKey) and writes it with the previous ones' expiry (tenants readWrite).
  {
    method: 'POST',
    path: '/v1/signing-secrets',
    handler: 'rotate-signing-secret',
    bodySchema: 'rotate-signing-secret.json',
    authorized: true,
    access: { tenants: 'readWrite', sealSecrets: true },
  },
  {
    method: 'GET',
    path: '/v1/signing-secrets',
    handler: 'list-signing-secrets',
    authorized: true,
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
    access: {},
  },
  // Monitoring: tenant-scoped stats (the admin scope sees all), the system view for the admin scope.
  {
    method: 'GET',
    path: '/v1/monitoring/stats',
    handler: 'monitoring-stats',
    authorized: true,
    // The tenants table lists the tenants whose job counters the admin view sums.
    access: { metrics: 'read', tenants: 'read' },
  },
  {
    method: 'GET',
    path: '/v1/monitoring/system',
    handler: 'monitoring-system',
    authorized: true,
    access: { metrics: 'read', readQueueAttributes: true, readQueueAgeMetric: true },
  },
];
