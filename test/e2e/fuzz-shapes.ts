/**
 * The shapes of the API's 2xx answers, as JSON Schemas (draft 2020-12, checked with the same Ajv the
 * handlers use). There is no response schema in schemas/ (those are the request shapes API Gateway
 * validates); these follow functions/core/views.ts and the README's API table, strictly: no field
 * left out, none added, every instant an ISO-8601 string of the accepted range (a job or run the
 * API created must never show `null` where its own dates belong).
 */
import { transpileSchema } from '@middy/validator/transpile';
import workflowRunSchema from '../../schemas/workflow-run.json' with { type: 'json' };
import workflowRunSummarySchema from '../../schemas/workflow-run-summary.json' with { type: 'json' };

/** `toISOString()` of an instant in 1970 … 2199 (functions/core/bounds.ts): what views.ts prints. */
const instant = { type: 'string', pattern: '^(19[7-9]\\d|2[01]\\d\\d)-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$' };
const instantOrNull = { oneOf: [instant, { type: 'null' }] };
const count = { type: 'integer', minimum: 0 };
const ULID = { type: 'string', pattern: '^[0-9A-HJKMNP-TV-Z]{26}$' };
const RUN_ID = { type: 'string', pattern: '^[0-9A-HJKMNP-TV-Z]{26}_\\d{1,13}_\\d{1,3}$' };
const JOB_STATUS = { enum: ['ACTIVE', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED'] };
const RUN_STATUS = {
  enum: ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED', 'DEAD_LETTERED'],
};
const PRIORITY = { enum: ['high', 'normal', 'low'] };
const stringMap = { type: 'object', additionalProperties: { type: 'string' } };
const nullable = (type: string) => ({ type: [type, 'null'] });

const closed = (properties: Record<string, unknown>, optional: string[] = []) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties).filter((name) => !optional.includes(name)),
  properties,
});

const bounds = { startAt: instant, endAt: instant, maxRuns: { type: 'integer', minimum: 1, maximum: 100_000_000 } };
const schedule = {
  oneOf: [
    closed({ type: { const: 'once' }, at: instant }),
    closed(
      { type: { const: 'interval' }, everySeconds: { type: 'integer', minimum: 1, maximum: 315_360_000 }, ...bounds },
      ['endAt', 'maxRuns'],
    ),
    closed(
      {
        type: { const: 'cron' },
        expression: { type: 'string', minLength: 1 },
        timezone: { type: 'string' },
        ...bounds,
      },
      ['endAt', 'maxRuns'],
    ),
  ],
};

/** A flow-control key and its limits (at least one), within create-job.json's bounds. */
const FLOW_CONTROL = closed(
  {
    key: { type: 'string', minLength: 1, maxLength: 128 },
    ratePerSecond: { type: 'number', minimum: 0.01, maximum: 10_000 },
    parallelism: { type: 'integer', minimum: 1, maximum: 10_000 },
  },
  ['ratePerSecond', 'parallelism'],
);

export const JOB_SCHEMA = closed(
  {
    jobId: ULID,
    name: { type: 'string', minLength: 1, maxLength: 200 },
    status: JOB_STATUS,
    target: closed(
      {
        url: { type: 'string', minLength: 1 },
        method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] },
        headers: stringMap,
        secretHeaders: { type: 'object', additionalProperties: { const: '***' } },
        body: {},
      },
      ['headers', 'secretHeaders', 'body'],
    ),
    schedule,
    misfire: { enum: ['fire_once', 'fire_all', 'skip'] },
    overlap: { enum: ['allow', 'forbid'] },
    // The effective policy: every field present, within create-job.json's bounds.
    retry: closed({
      maxAttempts: { type: 'integer', minimum: 1, maximum: 20 },
      initialDelaySeconds: { type: 'integer', minimum: 1, maximum: 3600 },
      maxDelaySeconds: { type: 'integer', minimum: 1, maximum: 86_400 },
      multiplier: { type: 'number', minimum: 1, maximum: 10 },
      retryOn: { type: 'array', maxItems: 20, items: { type: 'integer', minimum: 400, maximum: 499 } },
    }),
    delivery: { enum: ['at-least-once', 'at-most-once'] },
    onFailure: { oneOf: [{ type: 'null' }, closed({ url: { type: 'string', minLength: 1, maxLength: 2048 } })] },
    timeoutSeconds: { type: 'integer', minimum: 1, maximum: 300 },
    slaSeconds: { type: 'integer', minimum: 1, maximum: 3600 },
    // Always shown, `normal` when the job has none (issue #22).
    priority: PRIORITY,
    // Every field present (the defaults filled), within async-settings.json's bounds; null for a synchronous job.
    async: {
      oneOf: [
        { type: 'null' },
        closed({
          heartbeatTimeoutSeconds: { type: 'integer', minimum: 5, maximum: 3600 },
          maxDurationSeconds: { type: 'integer', minimum: 5, maximum: 604_800 },
          cancelGraceSeconds: { type: 'integer', minimum: 0, maximum: 3600 },
        }),
      ],
    },
    flowControl: { oneOf: [{ type: 'null' }, FLOW_CONTROL] },
    nextFireAt: instantOrNull,
    pausedAt: instant,
    quarantine: closed({ reason: { type: 'string' }, at: instant }),
    upcoming: { type: 'array', maxItems: 5, items: instant },
    version: { type: 'integer', minimum: 1 },
    createdAt: instant,
    updatedAt: instant,
    latestRun: {
      oneOf: [
        { type: 'null' },
        closed({
          runId: RUN_ID,
          scheduledFor: instant,
          attempt: { type: 'integer', minimum: 1, maximum: 999 },
          status: RUN_STATUS,
          httpStatus: nullable('integer'),
          completedAt: instantOrNull,
        }),
      ],
    },
  },
  ['name', 'pausedAt', 'quarantine', 'upcoming'],
);

export const RUN_SCHEMA = closed(
  {
    runId: RUN_ID,
    jobId: ULID,
    scheduledFor: instant,
    attempt: { type: 'integer', minimum: 1, maximum: 999 },
    status: RUN_STATUS,
    createdAt: instant,
    enqueuedAt: instantOrNull,
    receivedAt: instantOrNull,
    claimedAt: instantOrNull,
    startedAt: instantOrNull,
    completedAt: instantOrNull,
    dueAt: instant,
    dispatchLagMs: nullable('integer'),
    startLagMs: nullable('integer'),
    slaSeconds: { type: 'integer', minimum: 1 },
    slaMet: nullable('boolean'),
    httpStatus: nullable('integer'),
    durationMs: nullable('integer'),
    error: nullable('string'),
    errorType: nullable('string'),
    responseExcerpt: nullable('string'),
    recoveries: count,
    outcomeReduced: { type: 'string' },
    async: { type: 'boolean' },
    acceptedAt: instantOrNull,
    progress: { oneOf: [{ type: 'null' }, { type: 'number', minimum: 0, maximum: 100 }] },
    progressMessage: nullable('string'),
    heartbeatAt: instantOrNull,
    heartbeatDeadline: instantOrNull,
    checkpointAt: instantOrNull,
    cancelRequestedAt: instantOrNull,
    output: {},
    // A workflow task's run names its workflow run and task; a job's run has null for both.
    workflowRunId: nullable('string'),
    taskKey: nullable('string'),
    // The lane the run was made in (issue #22).
    priority: PRIORITY,
    // Only GET /v1/runs/{runId} shows the checkpoint itself.
    checkpoint: {},
    // A run of a job naming a flow-control key; waitedMs once it waited for the key.
    flowControl: FLOW_CONTROL,
    waitedMs: { type: 'integer', minimum: 0 },
  },
  ['outcomeReduced', 'checkpoint', 'flowControl', 'waitedMs'],
);

const page = (item: unknown) =>
  closed({ items: { type: 'array', maxItems: 100, items: item }, cursor: nullable('string') });

const SECRET_SCHEMA = closed(
  {
    secretId: { type: 'string', minLength: 1 },
    prefix: { type: 'string', minLength: 1 },
    createdAt: instant,
    expiresAt: instant,
    secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/=]+$' },
  },
  ['expiresAt', 'secret'],
);

const latency = closed({
  count,
  p50: nullable('number'),
  p95: nullable('number'),
  p99: nullable('number'),
  overflow: count,
  histogram: { type: 'array', items: closed({ leMs: nullable('number'), count }) },
});
const rate = { oneOf: [{ type: 'null' }, { type: 'number', minimum: 0, maximum: 1 }] };

export const STATS_SCHEMA = closed({
  scope: { type: 'string' },
  window: { enum: ['5m', '1h', '24h'] },
  from: instant,
  to: instant,
  jobs: closed({ byStatus: { type: 'object', propertyNames: JOB_STATUS, additionalProperties: count } }),
  runs: closed({
    byStatus: { type: 'object', propertyNames: RUN_STATUS, additionalProperties: count },
    total: count,
    retried: count,
    slaMissed: count,
    heartbeatTimeouts: count,
    successRate: rate,
    errorRate: rate,
    deadLetters: count,
    dueNotStarted: count,
  }),
  startLagMs: latency,
  durationMs: latency,
});

const percentiles = closed({ p50: nullable('number'), p95: nullable('number') });

export const TIMESERIES_SCHEMA = closed({
  scope: { type: 'string' },
  window: { enum: ['1h', '24h'] },
  from: instant,
  to: instant,
  stepSeconds: { enum: [60, 900] },
  points: {
    type: 'array',
    minItems: 60,
    maxItems: 96,
    items: closed({
      at: instant,
      succeeded: count,
      failed: count,
      timedOut: count,
      cancelled: count,
      skipped: count,
      deadLettered: count,
      retried: count,
      slaMissed: count,
      durationMs: percentiles,
      startLagMs: percentiles,
    }),
  },
});

/** A schema of schemas/ as the validator takes it here: without its own identity and examples. */
const bare = ({ $schema: _s, $id: _i, examples: _e, ...schema }: Record<string, unknown>) => schema;

export const SHAPES = {
  job: JOB_SCHEMA,
  run: RUN_SCHEMA,
  jobs: page(JOB_SCHEMA),
  runs: page(RUN_SCHEMA),
  secret: SECRET_SCHEMA,
  secrets: closed({ items: { type: 'array', minItems: 1, items: SECRET_SCHEMA } }),
  stats: STATS_SCHEMA,
  timeseries: TIMESERIES_SCHEMA,
  health: closed({ status: { const: 'ok' } }),
  preview: closed({ occurrences: { type: 'array', maxItems: 100, items: instant } }),
  // The workflow-run answers are held to their own schemas (closed: additionalProperties false).
  workflowRun: bare(workflowRunSchema),
  workflowRuns: page(bare(workflowRunSummarySchema)),
} as const;

export type Shape = keyof typeof SHAPES;

/** What transpileSchema returns at run time (its typings say Ajv): Ajv's compiled validate function. */
type Validate = ((data: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };
const validators = new Map<Shape, Validate>();

/** The problems of `body` against `shape`'s schema; [] when it fits. */
export function shapeProblems(shape: Shape, body: unknown): string[] {
  let validate = validators.get(shape);
  if (!validate) {
    validate = transpileSchema(SHAPES[shape], {
      coerceTypes: false,
      useDefaults: false,
      strict: false,
    }) as unknown as Validate;
    validators.set(shape, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
