/**
 * How async runs show through the local runtime: a run's progress, heartbeat and output in the
 * run history; the stats' heartbeat timeouts, counted by the completion handler from the runs
 * stream; and the system view's async runs in flight, counted from the runs table's deadline index.
 *
 * The runs are planted in the runs table as the async callbacks and the deadline pass write them
 * (their writers are other parts of the work): what is under test here is only how they are shown
 * and counted. The scanner never runs (its deadline pass would end the overdue run).
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toRunItem } from '#adapters/dynamodb/run-item';
import { dueShardOf, shardName } from '#core/due-shard';
import type { Run } from '#core/model';
import { runIdOf } from '#core/run-id';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

const ADMIN_TOKEN = 'chronos-e2e-async-monitoring-operator';
const SETTINGS = { heartbeatTimeoutSeconds: 60, maxDurationSeconds: 3600, cancelGraceSeconds: 30 };
let chronos: LocalChronos;
let documents: DynamoDBDocument;
let tenant: Api;
let admin: Api;
let jobId: string;
const t0 = Date.now();

beforeAll(async () => {
  chronos = await startLocalChronos({
    port: 0,
    adminToken: ADMIN_TOKEN,
    scannerIntervalMs: 3_600_000,
    components: { executor: false },
    log: () => undefined,
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
  tenant = apiAs(chronos.apiUrl, chronos.token);
  admin = apiAs(chronos.apiUrl, ADMIN_TOKEN);
  // A job far in the future: its own run never comes; the planted runs belong to it.
  const created = await tenant('POST', '/v1/jobs', {
    target: { url: 'https://example.com/export' },
    schedule: { type: 'once', at: new Date(t0 + 30 * 86_400_000).toISOString() },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  jobId = created.body.jobId;
});
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
});

/** An accepted async attempt, RUNNING, in the deadline index as the callbacks leave it. */
function inFlight(occurrence: number, over: Partial<Run> = {}): Run {
  const key = { tenantId: chronos.tenantId, jobId, scheduledFor: t0 - occurrence * 60_000, attempt: 1 };
  const heartbeatDeadline = over.heartbeatDeadline ?? t0 + 60_000;
  return {
    ...key,
    runId: runIdOf(key),
    status: 'RUNNING',
    createdAt: key.scheduledFor,
    startedAt: key.scheduledFor + 20,
    httpStatus: 202,
    async: SETTINGS,
    asyncRevision: 2,
    acceptedAt: key.scheduledFor + 40,
    heartbeatAt: heartbeatDeadline - 60_000,
    heartbeatDeadline,
    maxDurationDeadline: key.scheduledFor + 3_600_000,
    deadlineShard: dueShardOf(jobId, 16),
    deadlineAt: heartbeatDeadline,
    ...over,
  };
}

const plant = (run: Run) => documents.put({ TableName: chronos.tables.runs, Item: toRunItem(run) });

describe('async runs in history', () => {
  it('shows progress, heartbeat and checkpoint time while running, and the output once done', async () => {
    const running = inFlight(1, {
      progress: 40,
      progressMessage: 'copied 4 of 10 tables',
      checkpointJson: '{"table":4}',
      checkpointAt: t0 - 1_000,
    });
    const done = {
      ...inFlight(2),
      status: 'SUCCEEDED' as const,
      completedAt: t0 - 500,
      progress: 100,
      outputJson: '{"rows":1200}',
      deadlineShard: undefined,
      deadlineAt: undefined,
    };
    await Promise.all([plant(running), plant(done)]);

    const { status, body } = await tenant('GET', `/v1/jobs/${jobId}/runs?limit=10`);

    expect(status).toBe(200);
    const byId = new Map(body.items.map((run: { runId: string }) => [run.runId, run]));
    expect(byId.get(running.runId)).toMatchObject({
      status: 'RUNNING',
      async: true,
      progress: 40,
      progressMessage: 'copied 4 of 10 tables',
      heartbeatDeadline: new Date(running.heartbeatDeadline as number).toISOString(),
      checkpointAt: new Date(t0 - 1_000).toISOString(),
      output: null,
    });
    expect(JSON.stringify(byId.get(running.runId))).not.toContain('"table":4');
    expect(byId.get(done.runId)).toMatchObject({ status: 'SUCCEEDED', progress: 100, output: { rows: 1200 } });
  });
});

describe('monitoring', () => {
  it('counts async runs in flight over every shard of the deadline index, and those overdue', async () => {
    const before = (await admin('GET', '/v1/monitoring/system')).body.asyncRuns;
    // Three more in flight, one of them past its heartbeat deadline; each in a shard of its own.
    await Promise.all([
      plant(inFlight(10, { deadlineShard: shardName(0) })),
      plant(inFlight(11, { deadlineShard: shardName(7) })),
      plant(inFlight(12, { deadlineShard: shardName(15), heartbeatDeadline: t0 - 5_000, deadlineAt: t0 - 5_000 })),
    ]);

    const after = await eventually(
      async () => (await admin('GET', '/v1/monitoring/system')).body.asyncRuns,
      (counts) => counts.inFlight === before.inFlight + 3,
      10_000,
    );

    expect(after).toEqual({ inFlight: before.inFlight + 3, overdue: before.overdue + 1 });
    // A tenant never sees the system view.
    expect((await tenant('GET', '/v1/monitoring/system')).status).toBe(403);
  });

  it('stops counting a run in flight once its end takes it out of the deadline index', async () => {
    const inFlightNow = async () => (await admin('GET', '/v1/monitoring/system')).body.asyncRuns.inFlight;
    const before = await inFlightNow();
    const run = inFlight(20);
    await plant(run);
    await eventually(inFlightNow, (n) => n === before + 1, 10_000);

    await plant({
      ...run,
      status: 'CANCELLED',
      completedAt: Date.now(),
      deadlineShard: undefined,
      deadlineAt: undefined,
    });

    expect(await eventually(inFlightNow, (n) => n === before, 10_000)).toBe(before);
  });

  it('counts heartbeat timeouts in the stats, apart from other timeouts, once their runs end', async () => {
    const missed = inFlight(30);
    const tooLong = inFlight(31);
    await Promise.all([plant(missed), plant(tooLong)]);
    const ended = {
      status: 'TIMED_OUT' as const,
      completedAt: Date.now(),
      deadlineShard: undefined,
      deadlineAt: undefined,
    };

    await Promise.all([
      plant({ ...missed, ...ended, errorType: 'heartbeat_timeout', error: 'no heartbeat for 60 s' }),
      plant({ ...tooLong, ...ended, errorType: 'timeout', error: 'ran past maxDurationSeconds' }),
    ]);

    const stats = await eventually(
      async () => (await tenant('GET', '/v1/monitoring/stats?window=5m')).body.runs,
      (runs) => runs.byStatus.TIMED_OUT >= 2,
      15_000,
    );
    expect(stats.heartbeatTimeouts).toBe(1);
    expect(stats.byStatus.TIMED_OUT).toBe(2);
    const all = (await admin('GET', '/v1/monitoring/stats?window=5m')).body.runs;
    expect(all.heartbeatTimeouts).toBe(1);
  });
});
