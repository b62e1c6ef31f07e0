/**
 * Key layout of Chronos' DynamoDB tables. The CDK constructs and the local runtime both build
 * their tables from these constants, so the deployed and the local schema cannot drift apart.
 */
import { DEADLINE_INDEX } from '#core/async/deadline-index';

export const JOBS_TABLE = {
  partitionKey: 'tenantId',
  sortKey: 'jobId',
  /** Sparse, sharded index of jobs that can still fire: only those carry `dueShard` and `nextFireAt`. */
  dueIndex: {
    name: 'due-index',
    partitionKey: 'dueShard',
    sortKey: 'nextFireAt',
    /** What the scanner needs to materialize occurrences without reading the job again. */
    projectedAttributes: ['schedule', 'status', 'version', 'occurrenceCount', 'policies', 'priority', 'flowControl'],
  },
} as const;

export const RUNS_TABLE = {
  /** `<tenantId>#<jobId>`: a job's whole history is one Query, and tenant isolation is structural. */
  partitionKey: 'pk',
  /** `<scheduledFor, 13 digits>#<attempt, 3 digits>`: newest first with ScanIndexForward=false. */
  sortKey: 'sk',
  /** Epoch seconds after which DynamoDB TTL deletes the run (retention). */
  ttlAttribute: 'expiresAt',
  /**
   * Sparse, sharded index of runs no executor has claimed yet, by when the scanner's sweep must send
   * them (`sweepAt`): every run enters it with its creating put, due its release plus a grace (a
   * retry parked beyond SQS's 15-minute delay: once within reach of a delay), and leaves it when
   * claimed or finished. So it only holds runs between their put and their claim.
   */
  sweepIndex: { name: 'sweep-index', partitionKey: 'sweepShard', sortKey: 'sweepAt' },
  /** Sparse index of dead-lettered runs per tenant, newest last, for `GET /v1/dead-letters`. */
  deadLetterIndex: { name: 'dead-letter-index', partitionKey: 'deadLetterTenant', sortKey: 'deadLetteredAt' },
  /**
   * Sparse, sharded index of accepted async runs in flight, by their earliest deadline (heartbeat,
   * max duration, cancel grace: core/async/deadline-index.ts): the scanner's deadline pass ends
   * those whose deadline passed. Only the key parts are projected: each run is read again, strongly
   * consistent, before it is decided on.
   */
  deadlineIndex: {
    name: DEADLINE_INDEX.name,
    partitionKey: DEADLINE_INDEX.partitionKey,
    sortKey: DEADLINE_INDEX.sortKey,
    projectedAttributes: ['tenantId', 'jobId', 'scheduledFor', 'attempt'],
  },
} as const;

/**
 * Workflow runs (core/workflows/stored.ts): one item per run of a workflow, holding the graph it
 * started with and each task's state. `pk` = `<tenantId>#<workflowId>`, `sk` = the occurrence
 * (13 digits): a workflow's runs are one Query, newest first with ScanIndexForward=false.
 */
export const WORKFLOW_RUNS_TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds: runs are kept as long as the task runs they list. */
  ttlAttribute: 'expiresAt',
} as const;

/**
 * Monitoring state, kept apart from the jobs and runs a tenant lists: per-tenant (and all-tenants)
 * minute buckets of run counts and latency histograms, job-status counters, markers that make
 * each run count once, and the scanner's heartbeat per shard. See metrics-repository.ts.
 */
export const METRICS_TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds: buckets and markers expire once no window can read them. */
  ttlAttribute: 'expiresAt',
} as const;

/**
 * Tenants and what is kept per tenant (tenant-keys.ts): the tenant item, its API tokens (a listing
 * record per token, a lookup record keyed by the token's SHA-256 for the authorizer's one
 * GetItem, and one keyed by token id for revocation), its create-rate bucket, the executors'
 * in-flight slots and the Idempotency-Keys of its creates.
 */
export const TENANTS_TABLE = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /**
   * Epoch seconds after which DynamoDB TTL deletes the item (create Idempotency-Keys). Not
   * `expiresAt`: signing secrets keep an `expiresAt` of their own, in milliseconds, that TTL must
   * never read.
   */
  ttlAttribute: 'purgeAt',
} as const;
