/**
 * One bad job or record never hurts the rest, end to end: a job whose schedule cannot be planned
 * (old data, planted straight into the jobs table) is quarantined visibly while every healthy job
 * of its shard and of the other shards fires on its second and health stays ok; a runs-stream
 * record that can never be read is set aside without holding up the records behind it.
 */
import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEARTBEAT_PK } from '#adapters/dynamodb/metrics-keys';
import { runTableKey } from '#adapters/dynamodb/run-item';
import { METRICS_TABLE } from '#adapters/dynamodb/table-definitions';
import { dueShardOf } from '#core/due-shard';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { createLocalClients } from '#local/emulators/local-clients';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

/** A stored time zone the runtime cannot resolve: planning the job throws, whatever the edge accepts today. */
const RETIRED_ZONE = 'Mars/Olympus_Mons';

const SHARDS = 4;
const HORIZON_S = 10;
const ADMIN_TOKEN = 'chronos-e2e-blast-radius-operator';
let chronos: LocalChronos;
let target: HttpTarget;
let api: Api;
const logged: string[] = [];

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({
    scannerIntervalMs: 2_000,
    scanHorizonSeconds: HORIZON_S,
    dueShardCount: SHARDS,
    adminToken: ADMIN_TOKEN,
    // Stream records gather between reads, so a poison record shares its batch with the ones after it.
    streamPollIntervalMs: 1_500,
    log: (message) => logged.push(message),
  });
  api = apiAs(chronos.apiUrl, chronos.token);
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

async function createOnce(path: string, at: number): Promise<string> {
  const { status, body } = await api('POST', '/v1/jobs', {
    target: { url: target.url(path) },
    schedule: { type: 'once', at: new Date(at).toISOString() },
  });
  expect(status).toBe(201);
  return body.jobId as string;
}

describe('a job that cannot be planned', () => {
  it('is quarantined with its reason while every healthy job of its shard and the others fires on its second', async () => {
    // Beyond the horizon: the scanner, not creation, materializes them.
    const due = Date.now() + (HORIZON_S + 4) * 1_000;
    const healthy = await Promise.all(Array.from({ length: 8 }, (_, i) => createOnce(`/healthy/${i}`, due)));
    const shards = healthy.map((jobId) => dueShardOf(jobId, SHARDS));
    expect(new Set(shards).size).toBeGreaterThan(1);
    // Old data: a time zone the runtime's tz database no longer knows (zones are renamed and retired).
    const poisonId = ulid();
    await localDocuments(chronos.endpoints.dynamodb).put({
      TableName: chronos.tables.jobs,
      Item: {
        tenantId: chronos.tenantId,
        jobId: poisonId,
        target: { url: target.url('/poison'), method: 'POST', headers: {} },
        schedule: { type: 'cron', expression: '* * * * *', timezone: RETIRED_ZONE, startAt: due - 1_000 },
        policies: { misfire: 'fire_once', overlap: 'allow' },
        retry: { maxAttempts: 1, initialDelaySeconds: 1, maxDelaySeconds: 1, multiplier: 1 },
        delivery: 'at-least-once',
        timeoutSeconds: 10,
        status: 'ACTIVE',
        version: 1,
        createdAt: Date.now(),
        updatedAt: Date.now(),
        occurrenceCount: 0,
        nextFireAt: due - 1_000,
        dueShard: shards[0],
      },
    });

    const calls = await Promise.all(healthy.map((_, i) => target.waitForCalls(`/healthy/${i}`, 1, 40_000)));

    for (const [call] of calls) {
      expect(call?.at).toBeGreaterThanOrEqual(due);
      expect((call?.at ?? 0) - due).toBeLessThan(2_000);
    }
    const poison = await eventually(
      () => api('GET', `/v1/jobs/${poisonId}`),
      (answer) => answer.body.quarantine !== undefined,
      10_000,
    );
    expect(poison.status).toBe(200);
    expect(poison.body).toMatchObject({
      status: 'ACTIVE',
      quarantine: { reason: expect.stringContaining('Invalid time zone'), at: expect.any(String) },
      upcoming: [],
    });
    expect(target.callsTo('/poison')).toEqual([]);

    const health = await apiAs(chronos.apiUrl, ADMIN_TOKEN)('GET', '/v1/health?deep=true');
    expect(health.status).toBe(200);
    expect(health.body.checks.scannerHeartbeat).toBe('ok');
    const system = await apiAs(chronos.apiUrl, ADMIN_TOKEN)('GET', '/v1/monitoring/system');
    expect(system.body.scanner.shards.map((shard: { shard: string }) => shard.shard)).toEqual([
      'due#00',
      'due#01',
      'due#02',
      'due#03',
    ]);
    for (const shard of system.body.scanner.shards) {
      expect(shard.error).toBeNull();
      expect(shard.ageSeconds).toBeLessThan(10);
    }
  }, 60_000);
});

/** The tenant's run total once two reads 1.5 s apart agree and nothing is due but not started. */
async function settledRunTotal(): Promise<number> {
  let last = -1;
  for (let read = 0; read < 20; read++) {
    const { runs } = (await api('GET', '/v1/monitoring/stats?window=5m')).body;
    if (runs.total === last && runs.dueNotStarted === 0) return last;
    last = runs.total as number;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }
  throw new Error(`the run total never settled (last ${last})`);
}

describe('a runs-stream record that can never be read', () => {
  it('is set aside at once: the records behind it in its shard complete their jobs and are counted', async () => {
    // A run that ends holding a key number no JS number can hold (a bug, or an item written by
    // hand): its terminal stream image cannot be read as a run. (An optional number out of range is
    // merely dropped from the image, and the run counted: test/unit/handlers/hostile-records.test.ts.)
    const poisonRun = { tenantId: 'tenant-poison', jobId: ulid(), scheduledFor: Date.now() + 3_600_000, attempt: 1 };
    const key = { pk: { S: runTableKey(poisonRun).pk }, sk: { S: runTableKey(poisonRun).sk } };
    const clients = createLocalClients(chronos.endpoints);
    try {
      await clients.dynamodb.send(
        new PutItemCommand({
          TableName: chronos.tables.runs,
          Item: {
            ...key,
            tenantId: { S: poisonRun.tenantId },
            jobId: { S: poisonRun.jobId },
            runId: { S: `${poisonRun.jobId}_${poisonRun.scheduledFor}_1` },
            scheduledFor: { N: String(poisonRun.scheduledFor) },
            attempt: { N: '1' },
            status: { S: 'QUEUED' },
            createdAt: { N: String(Date.now()) },
          },
        }),
      );
      await clients.dynamodb.send(
        new UpdateItemCommand({
          TableName: chronos.tables.runs,
          Key: key,
          UpdateExpression: 'SET #status = :succeeded, completedAt = :now, scheduledFor = :huge',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':succeeded': { S: 'SUCCEEDED' },
            ':now': { N: String(Date.now()) },
            ':huge': { N: '123456789012345678901234' },
          },
        }),
      );
    } finally {
      clients.destroy();
    }
    // The earlier tests' runs may still be on their way into the aggregates: count from a settled total.
    const before = await settledRunTotal();
    // Right behind it in the stream: runs due now, whose jobs complete through the same handler.
    const jobs = await Promise.all(Array.from({ length: 5 }, (_, i) => createOnce(`/after-poison/${i}`, Date.now())));

    for (const jobId of jobs) {
      const job = await eventually(
        () => api('GET', `/v1/jobs/${jobId}`),
        (answer) => answer.body.status === 'COMPLETED',
        20_000,
      );
      expect(job.body.status).toBe('COMPLETED');
    }
    const stats = await eventually(
      () => api('GET', '/v1/monitoring/stats?window=5m'),
      (answer) => answer.body.runs.total === before + jobs.length && answer.body.runs.dueNotStarted === 0,
      10_000,
    );
    expect(stats.body.runs.total).toBe(before + jobs.length);
    expect(stats.body.runs.dueNotStarted).toBe(0);
    // Never retried until dropped to the on-failure destination (with the records behind it).
    expect(logged.filter((line) => /dropped|giving up/.test(line))).toEqual([]);
  }, 60_000);
});

describe('health while a scanner shard fails', () => {
  it('answers 503 naming the failing shard (and only it), and the admin view shows its error', async () => {
    // The scanner's side (a shard whose query throws writes this heartbeat) is proven in
    // test/integration/scanner-isolation.test.ts; here the API reads such a heartbeat as stored.
    // A shard beyond the 4 scanned, so the running scanner does not overwrite it.
    const documents = localDocuments(chronos.endpoints.dynamodb);
    const key = { [METRICS_TABLE.partitionKey]: HEARTBEAT_PK, [METRICS_TABLE.sortKey]: 'due#07' };
    const failed = { shard: 'due#07', at: Date.now(), durationMs: 3, jobsFound: 0, runsCreated: 0, lagMs: 0 };
    await documents.put({
      TableName: chronos.tables.metrics,
      Item: { ...key, ...failed, error: 'ThrottlingException: Rate exceeded' },
    });
    try {
      // deep=true: taken now, not the admin's cached answer of a moment ago.
      const health = await apiAs(chronos.apiUrl, ADMIN_TOKEN)('GET', '/v1/health?deep=true');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({
        status: 'unavailable',
        checks: { scannerHeartbeat: 'failing', jobsTable: 'ok', runsTable: 'ok', dispatchQueue: 'ok' },
        failing: ['scannerHeartbeat'],
        failingShards: ['due#07'],
      });
      expect(JSON.stringify(health.body)).not.toContain('Rate exceeded');
      const system = await apiAs(chronos.apiUrl, ADMIN_TOKEN)('GET', '/v1/monitoring/system');
      expect(system.body.scanner.shards.find((shard: { shard: string }) => shard.shard === 'due#07')).toMatchObject({
        error: 'ThrottlingException: Rate exceeded',
      });
    } finally {
      await documents.delete({ TableName: chronos.tables.metrics, Key: key });
    }
    expect((await apiAs(chronos.apiUrl, ADMIN_TOKEN)('GET', '/v1/health?deep=true')).status).toBe(200);
  }, 30_000);
});
