/**
 * GET /v1/monitoring/timeseries end to end through the local runtime: runs that succeed and fail,
 * in two different minutes, appear in the points of the minutes (and quarter hours) they finished
 * in, as the runs table records them; every other point is zero. A tenant sees only its own runs,
 * the admin scope every tenant's or one's; a bad window is a 400 naming the parameter.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POINT_COUNT_NAMES } from '#core/metrics/monitoring-timeseries';
import { minuteOf } from '#core/metrics/run-sample';
import type { Run } from '#core/model';
import type { TerminalRunStatus } from '#core/run-state';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

const ADMIN_TOKEN = 'chronos-e2e-timeseries-operator';
const MINUTE = 60_000;
const COUNTS = Object.values(POINT_COUNT_NAMES);
type Point = Record<(typeof COUNTS)[number], number> & { at: string };

let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;
let apiA: Api;
let apiB: Api;
let admin: Api;
let tenantB: string;

beforeAll(async () => {
  target = await startHttpTarget((path) => ({ status: path.startsWith('/fail') ? 500 : 200 }));
  chronos = await startLocalChronos({ port: 0, adminToken: ADMIN_TOKEN, log: () => undefined });
  documents = localDocuments(chronos.endpoints.dynamodb);
  apiA = apiAs(chronos.apiUrl, chronos.token);
  admin = apiAs(chronos.apiUrl, ADMIN_TOKEN);
  const b = await chronos.tenants.create('series-b');
  tenantB = b.tenant.tenantId;
  apiB = apiAs(chronos.apiUrl, b.token.token);
}, 60_000);
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
  await target?.close();
});

async function createOnce(api: Api, path: string, at?: number): Promise<string> {
  const created = await api('POST', '/v1/jobs', {
    target: { url: target.url(path) },
    schedule: { type: 'once', ...(at === undefined ? {} : { at: new Date(at).toISOString() }) },
    retry: { maxAttempts: 1 },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.jobId;
}

async function finishedRuns(tenantId: string): Promise<Run[]> {
  const { Items = [] } = await documents.scan({ TableName: chronos.tables.runs });
  return (Items as Run[]).filter((r) => r.tenantId === tenantId && r.runId !== undefined && r.completedAt);
}

/** The counts the points must hold: each run under the step its completedAt falls in. */
function expectedPoints(runs: Run[], from: number, stepMs: number): Map<number, Partial<Point>> {
  const points = new Map<number, Partial<Point>>();
  for (const run of runs) {
    const at = from + Math.floor((minuteOf(run.completedAt as number) - from) / stepMs) * stepMs;
    const point = points.get(at) ?? {};
    const name = POINT_COUNT_NAMES[run.status as TerminalRunStatus];
    point[name] = (point[name] ?? 0) + 1;
    points.set(at, point);
  }
  return points;
}

/** The points' counts, only those not all zero, keyed by their start. */
function nonZero(points: Point[]): Map<number, Partial<Point>> {
  const found = new Map<number, Partial<Point>>();
  for (const point of points) {
    const counts = Object.fromEntries(COUNTS.filter((name) => point[name] !== 0).map((name) => [name, point[name]]));
    if (Object.keys(counts).length > 0) found.set(Date.parse(point.at), counts);
  }
  return found;
}

const total = (points: Point[]) => points.reduce((sum, p) => sum + COUNTS.reduce((s, name) => s + p[name], 0), 0);

async function seriesOf(api: Api, query: string, runs: number) {
  const answer = await eventually(
    () => api('GET', `/v1/monitoring/timeseries${query}`),
    (r) => r.status === 200 && total(r.body.points) >= runs,
    15_000,
  );
  expect(answer.status).toBe(200);
  return answer.body;
}

describe('the timeseries of runs that succeed and fail', () => {
  beforeAll(async () => {
    const settled = (api: Api, ids: string[]) =>
      eventually(
        async () => Promise.all(ids.map(async (id) => (await api('GET', `/v1/jobs/${id}`)).body.status)),
        (statuses) => statuses.every((s) => s === 'COMPLETED' || s === 'FAILED'),
        75_000,
      );
    // Two now, and two once those have finished, at the start of the next minute: runs that
    // finish in two different minutes.
    const jobB = await createOnce(apiB, '/ok/b');
    await settled(apiA, [await createOnce(apiA, '/ok/now'), await createOnce(apiA, '/fail/now')]);
    const last = Math.max(...(await finishedRuns(chronos.tenantId)).map((r) => r.completedAt as number));
    const next = minuteOf(last) + MINUTE + 1_000;
    await settled(apiA, [await createOnce(apiA, '/ok/next', next), await createOnce(apiA, '/fail/next', next)]);
    await settled(apiB, [jobB]);
  }, 120_000);

  it("puts each of a tenant's runs in the minute it finished in, and nothing in any other", async () => {
    const runs = await finishedRuns(chronos.tenantId);
    const series = await seriesOf(apiA, '?window=1h', runs.length);

    expect(series).toMatchObject({ scope: chronos.tenantId, window: '1h', stepSeconds: 60 });
    expect(series.points).toHaveLength(60);
    const expected = expectedPoints(runs, Date.parse(series.from), MINUTE);
    expect(nonZero(series.points)).toEqual(expected);
    // The premise: successes and failures, in two different minutes.
    expect(runs.map((r) => r.status).sort()).toEqual(['FAILED', 'FAILED', 'SUCCEEDED', 'SUCCEEDED']);
    expect(expected.size).toBe(2);
    // Finished runs carry their percentiles; empty minutes have none.
    const busy = series.points.filter((p: Point) => expected.has(Date.parse(p.at)));
    for (const point of busy) expect(point.durationMs.p50).not.toBeNull();
    const idle = series.points.find((p: Point) => !expected.has(Date.parse(p.at)));
    expect(idle).toMatchObject({ succeeded: 0, failed: 0, durationMs: { p50: null, p95: null } });
  });

  it('puts them in their quarter hour over a day, and adds up to the stats of the same window', async () => {
    const runs = await finishedRuns(chronos.tenantId);
    const series = await seriesOf(apiA, '?window=24h', runs.length);

    expect(series).toMatchObject({ window: '24h', stepSeconds: 900 });
    expect(series.points).toHaveLength(96);
    expect(nonZero(series.points)).toEqual(expectedPoints(runs, Date.parse(series.from), 15 * MINUTE));
    const stats = (await apiA('GET', '/v1/monitoring/stats?window=24h')).body;
    expect(total(series.points)).toBe(stats.runs.total);
  });

  it("keeps each tenant to its own runs, and shows the admin every tenant's, or one's", async () => {
    const runsA = await finishedRuns(chronos.tenantId);
    const runsB = await finishedRuns(tenantB);
    const b = await seriesOf(apiB, '', runsB.length);

    expect(b.scope).toBe(tenantB);
    expect(nonZero(b.points)).toEqual(expectedPoints(runsB, Date.parse(b.from), MINUTE));
    expect(total(b.points)).toBe(1);
    // Asking for another tenant's series is the admin's alone.
    const asked = await apiB('GET', `/v1/monitoring/timeseries?tenantId=${chronos.tenantId}`);
    expect(asked.status).toBe(400);
    expect(asked.body.error.details).toEqual([{ field: 'tenantId', reason: expect.any(String) }]);

    const all = await seriesOf(admin, '', runsA.length + runsB.length);
    expect(all.scope).toBe('*');
    expect(total(all.points)).toBe(runsA.length + runsB.length);
    expect(nonZero(all.points)).toEqual(expectedPoints([...runsA, ...runsB], Date.parse(all.from), MINUTE));
    const onlyB = await seriesOf(admin, `?tenantId=${tenantB}`, runsB.length);
    expect(onlyB.scope).toBe(tenantB);
    expect(nonZero(onlyB.points)).toEqual(nonZero(b.points));
  });

  it('answers a window it does not serve with a 400 naming the window', async () => {
    for (const window of ['5m', '2d', '']) {
      const answer = await apiA('GET', `/v1/monitoring/timeseries?window=${window}`);
      expect(answer.status, window).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_FAILED');
      expect(answer.body.error.details).toEqual([{ field: 'window', reason: 'must be one of 1h, 24h' }]);
    }
  });
});
