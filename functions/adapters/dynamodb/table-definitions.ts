/**
 * Key layout of Chronos' DynamoDB tables. The CDK constructs and the local runtime both build
 * their tables from these constants, so the deployed and the local schema cannot drift apart.
 */
export const JOBS_TABLE = {
  partitionKey: 'tenantId',
  sortKey: 'jobId',
  /** Sparse, sharded index of jobs that can still fire: only those carry `dueShard` and `nextFireAt`. */
  dueIndex: {
    name: 'due-index',
    partitionKey: 'dueShard',
    sortKey: 'nextFireAt',
    /** What the scanner needs to materialize occurrences without reading the job again. */
    projectedAttributes: ['schedule', 'status', 'version', 'occurrenceCount', 'policies'],
  },
} as const;

export const RUNS_TABLE = {
  /** `<tenantId>#<jobId>`: a job's whole history is one Query, and tenant isolation is structural. */
  partitionKey: 'pk',
  /** `<scheduledFor, 13 digits>#<attempt, 3 digits>`: newest first with ScanIndexForward=false. */
  sortKey: 'sk',
  /** Epoch seconds after which DynamoDB TTL deletes the run (retention). */
  ttlAttribute: 'expiresAt',
} as const;
