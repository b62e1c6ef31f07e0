/**
 * Names of the environment variables that configure every Chronos function. CDK sets them on the
 * deployed functions and the local runtime sets them on its own process: handlers read only these.
 */
export const ENV = {
  jobsTable: 'JOBS_TABLE_NAME',
  runsTable: 'RUNS_TABLE_NAME',
  /** Workflow runs (WORKFLOW_RUNS_TABLE): the API's workflow routes, the executor (starter runs) and the completion handler. */
  workflowRunsTable: 'WORKFLOW_RUNS_TABLE_NAME',
  /**
   * The API's public base URL (no trailing slash): async jobs' calls carry
   * `Chronos-Callback-Url: <it>/v1/callbacks/<token>` (the executor).
   */
  callbackBaseUrl: 'CALLBACK_BASE_URL',
  /** The `normal` lane's dispatch queue (core/priority.ts); the other lanes have their own. */
  dispatchQueueUrl: 'DISPATCH_QUEUE_URL',
  dispatchQueueUrlHigh: 'DISPATCH_QUEUE_URL_HIGH',
  dispatchQueueUrlLow: 'DISPATCH_QUEUE_URL_LOW',
  dueShardCount: 'DUE_SHARD_COUNT',
  scanHorizonSeconds: 'SCAN_HORIZON_SECONDS',
  /** How long past its release a run may stay unclaimed before the scanner's sweep sends it again (default 60). */
  sweepGraceSeconds: 'SWEEP_GRACE_SECONDS',
  runRetentionDays: 'RUN_RETENTION_DAYS',
  responseExcerptBytes: 'RESPONSE_EXCERPT_BYTES',
  leaseMarginSeconds: 'LEASE_MARGIN_SECONDS',
  /** `true` lets targets on the loopback interface be called (the local runtime); private ranges stay refused. */
  allowLoopbackTargets: 'ALLOW_LOOPBACK_TARGETS',
  /** The notifier's queue: failure notices for onFailure URLs (completion sends, the notifier consumes). */
  failureNoticeQueueUrl: 'FAILURE_NOTICE_QUEUE_URL',
  /** How long the notifier waits for an onFailure endpoint (default 10). */
  notifyTimeoutSeconds: 'NOTIFY_TIMEOUT_SECONDS',
  /** First backoff of a notice that was not delivered (default 10), × 4 per further receive, at most 15 min. */
  notifyBackoffSeconds: 'NOTIFY_BACKOFF_SECONDS',
  /**
   * Name servers for target names, comma-separated `ip` or `ip:port` (default: the system's). Target
   * names are resolved by c-ares with its own timeout (guarded-lookup.ts); tests point it at their own server.
   */
  targetDnsServers: 'TARGET_DNS_SERVERS',
  /** Host names of Chronos' own API, comma-separated (CDK: the stage's API Gateway host): refused as targets. */
  chronosApiHosts: 'CHRONOS_API_HOSTS',
  /** Loopback ports of the local runtime (its API, the emulators), comma-separated: refused as targets. */
  chronosLocalPorts: 'CHRONOS_LOCAL_PORTS',
  /** Tenants, API tokens, create buckets and executor slots (TENANTS_TABLE). */
  tenantsTable: 'TENANTS_TABLE_NAME',
  /** Stage defaults of the per-tenant quotas (a tenant item may override each); see tenant-quotas.ts. */
  quotaMaxActiveJobs: 'QUOTA_MAX_ACTIVE_JOBS',
  quotaCreatesPerSecond: 'QUOTA_CREATES_PER_SECOND',
  quotaCreateBurst: 'QUOTA_CREATE_BURST',
  quotaTriggersPerSecond: 'QUOTA_TRIGGERS_PER_SECOND',
  quotaTriggerBurst: 'QUOTA_TRIGGER_BURST',
  quotaMinIntervalSeconds: 'QUOTA_MIN_INTERVAL_SECONDS',
  quotaMaxPayloadBytes: 'QUOTA_MAX_PAYLOAD_BYTES',
  quotaMaxConcurrentRuns: 'QUOTA_MAX_CONCURRENT_RUNS',
  /**
   * The most target calls the executor fleet can have in flight (its maximum concurrency × batch
   * size): a tenant whose maxConcurrentRuns is at least this takes no in-flight slot, since its cap
   * could never bind. Unset: every run takes a slot.
   */
  executorMaxCallsInFlight: 'EXECUTOR_MAX_CALLS_IN_FLIGHT',
  /**
   * Early release of dispatch messages (core/release-spread.ts): every future run this many ms
   * early, a burst spread at DISPATCH_READY_PER_SECOND runs per second before its due second, never
   * more than DISPATCH_MAX_LEAD_MS early. Unset: released in the second before, as SQS's
   * whole-second delays give.
   */
  dispatchLeadMs: 'DISPATCH_LEAD_MS',
  dispatchReadyPerSecond: 'DISPATCH_READY_PER_SECOND',
  dispatchMaxLeadMs: 'DISPATCH_MAX_LEAD_MS',
  /** The runs table's stream: where the stream-failure handler reads failed batches back. */
  runsStreamArn: 'RUNS_STREAM_ARN',
  /** Origins the API answers with CORS headers, comma-separated; unset or empty: no CORS headers. */
  corsAllowOrigins: 'CORS_ALLOW_ORIGINS',
  /** KMS key that wraps the data keys of secret target headers (deployed). */
  secretsKmsKeyId: 'SECRETS_KMS_KEY_ID',
  /** Base64 32-byte key used instead of KMS by the local runtime. */
  secretsLocalKey: 'SECRETS_LOCAL_KEY',
} as const;

/**
 * A check every required read goes through first. The local runtime registers one that refuses a
 * variable the invoked function would not be given deployed (all local functions share one
 * environment; functions/local/aws-fidelity/function-environments.ts). Deployed, there is none.
 */
let requiredReadCheck: ((name: string) => void) | undefined;

/** Sets (or, with undefined, removes) the check of requiredEnv's reads. */
export function registerRequiredEnvCheck(check: ((name: string) => void) | undefined): void {
  requiredReadCheck = check;
}

/** The required reads of each build in progress (builds nest: a value built from others). */
const recordings: Set<string>[] = [];

function noteRequiredRead(name: string): void {
  for (const reads of recordings) reads.add(name);
  requiredReadCheck?.(name);
}

/**
 * Runs `build` and returns its value with the names of the required variables it read, directly
 * or through values it reused: a value built once and kept (wiring.ts) is checked again with them
 * on every later use, since deployed each function builds it from its own environment.
 */
export function withRequiredReads<T>(build: () => T): { value: T; reads: readonly string[] } {
  const reads = new Set<string>();
  recordings.push(reads);
  try {
    const value = build();
    return { value, reads: [...reads] };
  } finally {
    recordings.splice(recordings.indexOf(reads), 1);
  }
}

/** The required reads of a value built earlier, checked as though it were built now. */
export function recheckRequiredReads(names: readonly string[]): void {
  for (const name of names) noteRequiredRead(name);
}

/** Reads a required variable; a missing one is a deployment error, never a silent default. */
export function requiredEnv(name: string): string {
  noteRequiredRead(name);
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Environment variable ${name} is not set`);
  return value;
}

/**
 * Whether an optional read may see the variable's value. The local runtime registers one: a
 * variable the invoked function is not given deployed reads as unset there, as on AWS, where its
 * default applies (functions/local/aws-fidelity/function-environments.ts). Deployed, there is none.
 */
let optionalReadCheck: ((name: string) => boolean) | undefined;

/** Sets (or, with undefined, removes) the check of optional reads. */
export function registerOptionalEnvCheck(check: ((name: string) => boolean) | undefined): void {
  optionalReadCheck = check;
}

/** Reads an optional variable: unset (or not given to this function) is undefined. */
export function optionalEnv(name: string): string | undefined {
  const value = process.env[name];
  if (value === undefined || value === '' || optionalReadCheck === undefined) return value;
  return optionalReadCheck(name) ? value : undefined;
}

/** Reads an optional integer variable of at least `min` (default 1), falling back to a documented default. */
export function intEnv(name: string, fallback: number, min = 1): number {
  const raw = optionalEnv(name);
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    const wanted = min === 1 ? 'a positive integer' : `an integer of at least ${min}`;
    throw new Error(`Environment variable ${name} must be ${wanted}, got "${raw}"`);
  }
  return value;
}

/** Reads an optional comma-separated list; unset or empty is an empty list. */
export function listEnv(name: string): string[] {
  return (optionalEnv(name) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
