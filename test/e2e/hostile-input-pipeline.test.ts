/**
 * Hostile numbers and dates through the whole local pipeline (create → scan → execute → complete).
 * fast-check fills every numeric and date field of POST /v1/jobs and PATCH /v1/jobs/{id} with
 * values at and past their bounds (zero, negatives, fractions, 9e12, 2^53, 1e308, dates from year 0
 * to +275760), alongside jobs that run. Whatever is accepted runs; whatever is refused is a 400.
 * Afterwards: no 5xx was answered, every stored instant is one later stages can store, no run is
 * stranded QUEUED or RUNNING past its lease, the health check is ok, and a well-behaved canary job
 * created alongside still fires on its second. Nothing here relies on the scanner isolating a bad
 * job: the edge bounds alone must keep every stored value representable.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_INSTANT, MAX_EVERY_SECONDS, MAX_RUNS } from '#core/bounds';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments, scanAll } from '../support/local-documents.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

const PROPERTY_RUNS = 40;
/** A QUEUED run whose due time passed this long ago, with its lease-free message long due, is stranded. */
const STRANDED_AFTER_MS = 30_000;

let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;
let api: Api;
/** The operator's token: the full health check (tables, heartbeats) answers it only. */
const ADMIN_TOKEN = 'chronos-e2e-hostile-input-operator';

beforeAll(async () => {
  target = await startHttpTarget((path) => ({ status: path.startsWith('/fail') ? 503 : 200 }));
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 1_000,
    scanHorizonSeconds: 5,
    // Bounded load on two shared cores: hostile jobs may still fire every two seconds.
    quotas: { minIntervalSeconds: 2 },
    adminToken: ADMIN_TOKEN,
    log: () => undefined,
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
  api = apiAs(chronos.apiUrl, chronos.token);
}, 60_000);
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
  await target?.close();
});

const allItems = (table: string) => scanAll(documents, table);

// ---- hostile values ---------------------------------------------------------------------------

const hostileNumber = fc.oneof(
  fc.constantFrom(
    0,
    -1,
    1,
    2,
    3,
    1.5,
    300,
    301,
    3600,
    3601,
    86_400,
    86_401,
    MAX_EVERY_SECONDS,
    MAX_EVERY_SECONDS + 1,
    MAX_RUNS,
    MAX_RUNS + 1,
    9e12,
    8.64e15,
    2 ** 53,
    2 ** 53 + 2,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const hostileDate = fc.oneof(
  fc.constantFrom(
    '0000-01-01T00:00:00Z',
    '1969-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00Z',
    '2199-12-31T23:59:59.999Z',
    '2200-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '+275760-09-13T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2199-12-31T23:59:59-23:59',
  ),
  // Near now, so that accepted jobs fire while the test runs.
  fc.integer({ min: -5_000, max: 8_000 }).map((offset) => new Date(Date.now() + offset).toISOString()),
  fc.date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true }).map((d) => d.toISOString()),
);

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 2 });
/** Mostly a value a user would send, sometimes a hostile one: enough jobs are accepted to run. */
const field = <T>(sane: fc.Arbitrary<T>, hostile: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 5, arbitrary: sane as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: hostile });
const saneSoon = (minMs: number, maxMs: number) =>
  fc.integer({ min: minMs, max: maxMs }).map((offset) => new Date(Date.now() + offset).toISOString());
const date = (minMs: number, maxMs: number) => field(saneSoon(minMs, maxMs), hostileDate);
const number = (min: number, max: number) => field(fc.integer({ min, max }), hostileNumber);

const hostileSchedule = fc.oneof(
  fc.record({ type: fc.constant('once'), at: maybe(date(-5_000, 8_000)) }),
  fc.record({
    type: fc.constant('interval'),
    everySeconds: number(2, 10),
    startAt: maybe(date(-5_000, 8_000)),
    endAt: maybe(date(10_000, 60_000)),
    maxRuns: maybe(number(1, 5)),
  }),
  fc.record({
    type: fc.constant('cron'),
    expression: fc.constantFrom('*/2 * * * * *', '*/5 * * * * *', '0 0 1 1 *', '0 0 29 2 *'),
    startAt: maybe(date(-5_000, 8_000)),
    endAt: maybe(date(10_000, 60_000)),
    maxRuns: maybe(number(1, 5)),
  }),
);

const hostileCreate = fc.record({
  target: fc.constantFrom('/ok', '/ok', '/fail').map((path) => ({ url: target.url(path) })),
  schedule: hostileSchedule,
  retry: maybe(
    fc.record(
      {
        maxAttempts: number(1, 3),
        initialDelaySeconds: number(1, 2),
        maxDelaySeconds: number(2, 5),
        multiplier: number(1, 3),
        retryOn: fc.array(number(400, 404), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
  ),
  timeoutSeconds: maybe(number(1, 30)),
  slaSeconds: maybe(number(1, 10)),
});

const hostileUpdate = fc.record(
  { schedule: hostileSchedule, timeoutSeconds: number(1, 30), slaSeconds: number(1, 10) },
  { requiredKeys: [] },
);

// ---- the property -----------------------------------------------------------------------------

describe('hostile numbers and dates through the whole pipeline', () => {
  it('refuses an interval of 9e12 seconds with 400 naming schedule.everySeconds, and stores nothing', async () => {
    const before = (await allItems(chronos.tables.jobs)).length;
    const answer = await api('POST', '/v1/jobs', {
      target: { url: target.url('/ok') },
      schedule: { type: 'interval', everySeconds: 9_000_000_000_000 },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details.map((d: { field: string }) => d.field)).toContain('schedule.everySeconds');
    expect((await allItems(chronos.tables.jobs)).length).toBe(before);
  });

  it('answers no 5xx, strands no run, keeps health ok, and a canary still fires on its second', async () => {
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    const count = (what: string) => statuses.set(what, (statuses.get(what) ?? 0) + 1);

    await fc.assert(
      fc.asyncProperty(hostileCreate, hostileUpdate, async (body, change) => {
        const created = await api('POST', '/v1/jobs', body);
        count(`POST ${created.status}`);
        if (created.status >= 500) failures.push(`POST ${JSON.stringify(body)} → ${created.status}`);
        expect(created.status, JSON.stringify(body)).toBeLessThan(500);
        if (created.status !== 201) {
          expect(created.status, JSON.stringify(created.body)).toBe(400);
          return;
        }
        const job = created.body;
        const patched = await api('PATCH', `/v1/jobs/${job.jobId}`, change, { 'if-match': `"${job.version}"` });
        count(`PATCH ${patched.status}`);
        if (patched.status >= 500) failures.push(`PATCH ${JSON.stringify(change)} → ${patched.status}`);
        expect(patched.status, JSON.stringify(change)).toBeLessThan(500);
      }),
      { numRuns: PROPERTY_RUNS },
    );
    console.info('hostile pipeline answers', Object.fromEntries(statuses));
    expect(failures).toEqual([]);
    // The generators reach both sides of the bounds, on both routes.
    expect(statuses.get('POST 201') ?? 0).toBeGreaterThan(PROPERTY_RUNS / 5);
    expect(statuses.get('POST 400') ?? 0).toBeGreaterThan(PROPERTY_RUNS / 5);
    expect(statuses.get('PATCH 200') ?? 0).toBeGreaterThan(0);
    expect(statuses.get('PATCH 400') ?? 0).toBeGreaterThan(0);

    // The scanner plans every stored job: a pass must not throw.
    await chronos.invokeScanner();

    // A well-behaved canary, alongside every hostile job that was accepted, fires on its second.
    const dueAt = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
    const canary = await api('POST', '/v1/jobs', {
      target: { url: target.url('/canary') },
      schedule: { type: 'once', at: new Date(dueAt).toISOString() },
    });
    expect(canary.status).toBe(201);
    const [call] = await target.waitForCalls('/canary', 1, 20_000);
    expect(call?.at).toBeGreaterThanOrEqual(dueAt);
    // Generous for two shared cores: "on its second" is about not being held up by the hostile jobs.
    expect((call?.at as number) - dueAt).toBeLessThan(3_000);

    // Health: every table answers and every shard's scanner heartbeat is fresh.
    const health = await apiAs(chronos.apiUrl, ADMIN_TOKEN)('GET', '/v1/health?deep=true');
    expect(health.status, JSON.stringify(health.body)).toBe(200);

    // Every instant stored on a job is one the later stages can store.
    for (const job of await allItems(chronos.tables.jobs)) {
      for (const field of ['nextFireAt', 'createdAt', 'updatedAt'] as const) {
        const value = job[field];
        if (value === undefined) continue;
        expect(Number.isSafeInteger(value), `${job.jobId} ${field}=${String(value)}`).toBe(true);
        expect(value as number, `${job.jobId} ${field}`).toBeLessThanOrEqual(LATEST_INSTANT);
      }
    }

    // No run stranded: RUNNING only under a live lease, QUEUED only while its due time is recent or ahead.
    const now = Date.now();
    const runs = (await allItems(chronos.tables.runs)).filter((run) => !String(run.sk).startsWith('trigger#'));
    const stranded = runs.filter((run) => {
      if (run.status === 'RUNNING') return (run.leaseExpiresAt as number) < now;
      if (run.status !== 'QUEUED') return false;
      const due = Math.max(run.scheduledFor as number, (run.availableAt as number | undefined) ?? 0);
      return due < now - STRANDED_AFTER_MS && (run.createdAt as number) < now - STRANDED_AFTER_MS;
    });
    expect(stranded).toEqual([]);
  }, 90_000);
});
