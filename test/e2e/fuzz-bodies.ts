/**
 * Job bodies, one generator per schedule type: valid ones (so jobs exist for the other commands to
 * reuse), valid ones with one field of that type at an edge — instants before 1970, at the end of
 * 2199, past 2286 (where epoch ms outgrow 13 digits) and Date's own limits, numbers around every
 * bound and Number.MAX_SAFE_INTEGER, unicode names, headers, cron fields and zones — and valid ones
 * with one field replaced, removed or added at random.
 */
import fc from 'fast-check';
import { instantText, numberNear, unicodeText } from './fuzz-edges.ts';

type Body = Record<string, unknown>;

const HOUR = 3_600_000;
/** Mostly far enough ahead that nothing fires during the test (the model can predict the job), sometimes now. */
const futureText = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 2 * HOUR, max: 400 * 24 * HOUR }).map((d) => iso(Date.now() + d)) },
  { weight: 1, arbitrary: fc.integer({ min: -HOUR, max: 20_000 }).map((d) => iso(Date.now() + d)) },
);
const iso = (ms: number) => new Date(ms).toISOString();
const headerValue = fc.oneof(fc.string({ maxLength: 20 }), unicodeText);
const farFuture = fc.integer({ min: 2 * HOUR, max: 400 * 24 * HOUR }).map((d) => iso(Date.now() + d));
const maxRuns = fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constantFrom(100_000_000));
const everySeconds = fc.oneof(fc.integer({ min: 60, max: 86_400 }), fc.constantFrom(1, 315_360_000));

/** A valid schedule of each type, mostly far ahead (so the model can predict the job), sometimes due now. */
const schedules = {
  once: fc.record({ type: fc.constant('once'), at: futureText }, { requiredKeys: ['type'] }),
  interval: fc
    .tuple(everySeconds, fc.option(futureText, { nil: undefined }), fc.option(maxRuns, { nil: undefined }))
    .map(([every, startAt, runs]) => ({ type: 'interval', everySeconds: every, startAt, maxRuns: runs })),
  cron: fc
    .tuple(
      fc.constantFrom('0 0 1 1 *', '0 0 29 2 *', '0 12 * * 1-5', '@yearly', '@monthly', '0 0 1 1 * 0', '*/5 * * * *'),
      fc.option(fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Pacific/Kiritimati', 'Etc/GMT+12'), {
        nil: undefined,
      }),
      fc.option(farFuture, { nil: undefined }),
    )
    .map(([expression, timezone, startAt]) => ({ type: 'cron', expression, timezone, startAt })),
};
type ScheduleType = keyof typeof schedules;

const cronField = fc.constantFrom('*', '0', '59', '*/15', '1-5', 'L', '?', '60', '-1', '1,2,3', '٣', '*/0');

/** Values at or past the edge, for the fields of each schedule type (and of every job). */
const EDGES: Record<string, fc.Arbitrary<unknown>> = {
  'schedule.at': instantText,
  'schedule.startAt': instantText,
  'schedule.endAt': instantText,
  'schedule.everySeconds': numberNear(1, 315_360_000),
  'schedule.maxRuns': numberNear(1, 100_000_000),
  'schedule.expression': fc.oneof(
    fc.array(cronField, { minLength: 4, maxLength: 7 }).map((fields) => fields.join(' ')),
    fc.constantFrom('0 0 30 2 *', '0 0 31 4 *', '@reboot', '* * * * * * *', '59 23 31 12 * 2199'),
    unicodeText,
  ),
  'schedule.timezone': fc.oneof(
    fc.constantFrom(
      'Mars/Olympus',
      'utc',
      '+01:00',
      'Europe/Berlin\u0000',
      'Etc/GMT+14',
      'America/Argentina/ComodRivadavia',
    ),
    unicodeText,
  ),
  name: unicodeText,
  timeoutSeconds: numberNear(1, 300),
  slaSeconds: numberNear(1, 3600),
  'retry.maxAttempts': numberNear(1, 20),
  'retry.initialDelaySeconds': numberNear(1, 3600),
  'retry.maxDelaySeconds': numberNear(1, 86_400),
  'retry.multiplier': fc.oneof(fc.double({ min: 1, max: 10, noNaN: true }), numberNear(1, 10)),
  'retry.retryOn': fc.array(numberNear(400, 499), { maxLength: 3 }),
  'target.headers': fc.dictionary(
    fc.oneof(fc.stringMatching(/^x-[a-z0-9-]{1,12}$/), unicodeText, fc.constantFrom('Authorization', 'Host')),
    headerValue,
    { maxKeys: 3 },
  ),
  'target.body': fc.oneof(fc.jsonValue({ maxDepth: 2 }), unicodeText),
  'flowControl.ratePerSecond': fc.oneof(numberNear(0, 10_000), fc.constantFrom(0.01, 0.009, 10_000.5)),
  'flowControl.parallelism': numberNear(1, 10_000),
  'target.url': fc.constantFrom(
    'http://169.254.169.254/latest',
    'http://[::ffff:127.0.0.1]/',
    'http://xn--nxasmq6b/',
    'http://ドメイン.テスト/',
    'ftp://x/',
  ),
};
/** The flow-control keys the fuzzed jobs name. */
export const FUZZ_FLOW_KEYS = ['fuzz-a', 'fuzz b/é'] as const;

const FIELDS_OF: Record<ScheduleType, string[]> = {
  once: ['schedule.at'],
  interval: ['schedule.startAt', 'schedule.endAt', 'schedule.everySeconds', 'schedule.maxRuns'],
  cron: ['schedule.startAt', 'schedule.endAt', 'schedule.maxRuns', 'schedule.expression', 'schedule.timezone'],
};
const COMMON_FIELDS = Object.keys(EDGES).filter((field) => !field.startsWith('schedule.'));

/** Everything but the target and schedule: each field valid, often absent. */
const options = fc.record(
  {
    name: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), unicodeText),
    misfire: fc.constantFrom('fire_once', 'fire_all', 'skip'),
    overlap: fc.constantFrom('allow', 'forbid'),
    retry: fc.record(
      { maxAttempts: fc.integer({ min: 1, max: 20 }), initialDelaySeconds: fc.integer({ min: 1, max: 3600 }) },
      { requiredKeys: [] },
    ),
    delivery: fc.constantFrom('at-least-once', 'at-most-once'),
    timeoutSeconds: fc.integer({ min: 1, max: 300 }),
    slaSeconds: fc.integer({ min: 1, max: 3600 }),
    // Two keys of the tenant (GET /v1/flow-control/{key} finds them); limits loose enough to never hold a run up.
    flowControl: fc.record({ key: fc.constantFrom(...FUZZ_FLOW_KEYS), ratePerSecond: fc.constantFrom(1000, 10_000) }),
  },
  { requiredKeys: [] },
);

/** A valid job body of `type` (the test's own target), its fields of that type listed for the edges. */
function validBody(baseUrl: string, type: ScheduleType): fc.Arbitrary<Body> {
  return fc
    .tuple(schedules[type], options, fc.option(unicodeText, { nil: undefined }))
    .map(([schedule, rest, secret]) =>
      withoutUndefined<Body>({
        ...rest,
        target: { url: `${baseUrl}/fuzz`, ...(secret === undefined ? {} : { secretHeaders: { 'x-secret': 's' } }) },
        schedule,
      }),
    );
}

/** A valid body of `type` with one of its fields (or one every job has) set to an edge value. */
function edgedBody(baseUrl: string, type: ScheduleType) {
  return fc
    .tuple(validBody(baseUrl, type), fc.constantFrom(...FIELDS_OF[type], ...COMMON_FIELDS))
    .chain(([body, field]) => (EDGES[field] as fc.Arbitrary<unknown>).map((value) => setPath(body, field, value)));
}

/** Job bodies of every schedule type: valid, one field at an edge, or one field mutated at random. */
export function createBody(baseUrl: string): fc.Arbitrary<Body> {
  const types = Object.keys(schedules) as ScheduleType[];
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(...types.map((type) => validBody(baseUrl, type))) },
    { weight: 3, arbitrary: fc.oneof(...types.map((type) => edgedBody(baseUrl, type))) },
    { weight: 1, arbitrary: mutated(fc.oneof(...types.map((type) => validBody(baseUrl, type)))) },
  );
}

/** A PATCH body: a field or a new schedule, valid or at an edge, sometimes several at once. */
export function patchBody(baseUrl: string): fc.Arbitrary<Body> {
  const types = Object.keys(schedules) as ScheduleType[];
  const patchable = ['name', 'schedule', 'target', 'misfire', 'overlap', 'timeoutSeconds', 'slaSeconds'];
  return fc
    .tuple(
      fc.oneof(...types.map((type) => validBody(baseUrl, type)), ...types.map((type) => edgedBody(baseUrl, type))),
      fc.subarray(patchable, { minLength: 1, maxLength: 3 }),
    )
    .map(([body, fields]) => Object.fromEntries(fields.filter((f) => f in body).map((f) => [f, body[f]])))
    .map((body) => (Object.keys(body).length === 0 ? { name: 'renamed' } : body));
}

function setPath(body: Body, dotted: string, value: unknown): Body {
  const copy = structuredClone(body);
  const path = dotted.split('.');
  let node = copy;
  for (const key of path.slice(0, -1)) {
    node[key] = (node[key] ?? {}) as Body;
    node = node[key] as Body;
  }
  node[path[path.length - 1] as string] = value;
  return copy;
}

const replacement = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  instantText,
  numberNear(0, 1),
  unicodeText,
  fc.constantFrom('once', 'interval', 'cron', null, [], {}),
);

/** The body with one field (at any depth) replaced, removed or added. */
function mutated(bodies: fc.Arbitrary<Body>): fc.Arbitrary<Body> {
  return fc
    .tuple(bodies, fc.nat(), replacement, fc.constantFrom('replace', 'remove', 'add'))
    .map(([body, pick, value, how]) => {
      const copy = structuredClone(body);
      const paths = fieldPaths(copy);
      const path = paths[pick % paths.length] as string[];
      let node: Body = copy;
      for (const key of path.slice(0, -1)) node = node[key] as Body;
      const last = path[path.length - 1] as string;
      if (how === 'remove') delete node[last];
      else if (how === 'add') node[`${last}Extra`] = value;
      else node[last] = value;
      return copy;
    });
}

function fieldPaths(body: Body, prefix: string[] = []): string[][] {
  return Object.entries(body).flatMap(([key, value]) => {
    const path = [...prefix, key];
    const inner =
      value && typeof value === 'object' && !Array.isArray(value) && prefix.length < 2
        ? fieldPaths(value as Body, path)
        : [];
    return [path, ...inner];
  });
}

function withoutUndefined<T extends Body>(body: T): T {
  return JSON.parse(JSON.stringify(body)) as T;
}
