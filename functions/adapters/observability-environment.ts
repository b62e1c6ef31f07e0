/**
 * Environment variables of monitoring, next to the shared ones in environment.ts: CDK sets them
 * on the functions that need them (lib/constructs/api-handlers.ts, observability wiring) and the
 * local runtime on its process.
 */
export const OBSERVABILITY_ENV = {
  /** The metrics table: run aggregates, job-status counters, scanner heartbeats. */
  metricsTable: 'METRICS_TABLE_NAME',
  /** Queues whose attributes GET /v1/monitoring/system and GET /v1/health read. */
  monitoredDispatchQueueUrl: 'MONITORED_DISPATCH_QUEUE_URL',
  monitoredDeadLetterQueueUrl: 'MONITORED_DEAD_LETTER_QUEUE_URL',
  /** The other priority lanes' queues (the two above are the `normal` lane's). */
  monitoredDispatchQueueUrlHigh: 'MONITORED_DISPATCH_QUEUE_URL_HIGH',
  monitoredDeadLetterQueueUrlHigh: 'MONITORED_DEAD_LETTER_QUEUE_URL_HIGH',
  monitoredDispatchQueueUrlLow: 'MONITORED_DISPATCH_QUEUE_URL_LOW',
  monitoredDeadLetterQueueUrlLow: 'MONITORED_DEAD_LETTER_QUEUE_URL_LOW',
  /** Stage name: a default dimension of every metric. */
  stage: 'CHRONOS_STAGE',
  /** `true` adds a `tenantId` dimension to run metrics (one series per tenant: mind the cost). */
  metricsTenantDimension: 'METRICS_TENANT_DIMENSION',
  /** Hex SHA-256 of the operator token; its bearer gets the admin scope (all tenants). Unset: no admin. */
  adminTokenSha256: 'ADMIN_TOKEN_SHA256',
  /** A scanner heartbeat older than this (seconds) makes GET /v1/health fail. */
  heartbeatMaxAgeSeconds: 'SCANNER_HEARTBEAT_MAX_AGE_SECONDS',
} as const;
