/**
 * Values from outside are bounded at the edge, end to end through the local runtime: numbers and
 * dates a later stage could not represent, pagination cursors built to pass the shape check but
 * not the domain (wrong types, another tenant's or job's partition, out-of-range keys), query
 * values out of range, and odd If-Match / Idempotency-Key headers. Each is a 400 naming the field,
 * never a 5xx, and nothing is written for it.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { type Answer, type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;
let api: Api;
const logs: string[] = [];
/** The operator's token: the full health check answers it only. */
const ADMIN_TOKEN = 'chronos-e2e-edge-bounds-operator';

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 0,
    scanHorizonSeconds: 10,
    adminToken: ADMIN_TOKEN,
    log: (message) => logs.push(message),
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
  api = apiAs(chronos.apiUrl, chronos.token);
}, 60_000);
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
  await target?.close();
});

const cursorOf = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

async function jobCount(): Promise<number> {
  const page = await documents.query({
    TableName: chronos.tables.jobs,
    KeyConditionExpression: 'tenantId = :t',
    ExpressionAttributeValues: { ':t': chronos.tenantId },
    Select: 'COUNT',
  });
  return page.Count ?? 0;
}

function expectFieldError(answer: Answer, field: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.error.code).toBe('VALIDATION_FAILED');
  expect(answer.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
}

async function createdJob(schedule: Record<string, unknown> = { type: 'once', at: inAnHour() }): Promise<string> {
  const created = await api('POST', '/v1/jobs', { target: { url: target.url('/edge') }, schedule });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.jobId;
}

describe('numbers and dates of a job are bounded at the edge', () => {
  it('refuses an interval of 9e12 seconds with 400 naming schedule.everySeconds, and stores nothing', async () => {
    const before = await jobCount();
    const answer = await api('POST', '/v1/jobs', {
      target: { url: target.url('/edge') },
      schedule: { type: 'interval', everySeconds: 9_000_000_000_000 },
    });
    expectFieldError(answer, 'schedule.everySeconds');
    expect(await jobCount()).toBe(before);
  });

  it('refuses dates outside the calendar range and huge maxRuns, naming each field', async () => {
    const before = await jobCount();
    const farAt = await api('POST', '/v1/jobs', {
      target: { url: target.url('/edge') },
      schedule: { type: 'once', at: '+275760-09-13T00:00:00Z' },
    });
    expect(farAt.status).toBe(400);
    const year9999 = await api('POST', '/v1/jobs', {
      target: { url: target.url('/edge') },
      schedule: { type: 'once', at: '9999-12-31T23:59:59Z' },
    });
    expectFieldError(year9999, 'schedule.at');
    const interval = await api('POST', '/v1/jobs', {
      target: { url: target.url('/edge') },
      schedule: {
        type: 'interval',
        everySeconds: 60,
        startAt: '1969-12-31T23:59:59Z',
        endAt: '2300-01-01T00:00:00Z',
      },
    });
    expectFieldError(interval, 'schedule.startAt');
    expectFieldError(interval, 'schedule.endAt');
    const maxRuns = await api('POST', '/v1/jobs', {
      target: { url: target.url('/edge') },
      schedule: { type: 'cron', expression: '* * * * *', maxRuns: Number.MAX_SAFE_INTEGER },
    });
    expectFieldError(maxRuns, 'schedule.maxRuns');
    expect(await jobCount()).toBe(before);
  });

  it('refuses the same out-of-range schedule on PATCH, leaving the job as it was', async () => {
    const jobId = await createdJob({ type: 'interval', everySeconds: 3600 });
    const job = await api('GET', `/v1/jobs/${jobId}`);
    const patched = await api(
      'PATCH',
      `/v1/jobs/${jobId}`,
      { schedule: { type: 'interval', everySeconds: 9_000_000_000_000 } },
      { 'if-match': `"${job.body.version}"` },
    );
    expectFieldError(patched, 'schedule.everySeconds');
    const after = await api('GET', `/v1/jobs/${jobId}`);
    expect(after.body.version).toBe(job.body.version);
    expect(after.body.schedule.everySeconds).toBe(3600);
  });
});

describe('pagination cursors are validated: shape, types, tenant and size', () => {
  it('answers 400 naming cursor for a jobs cursor with the right key names but wrong types', async () => {
    const answer = await api('GET', `/v1/jobs?cursor=${cursorOf({ tenantId: chronos.tenantId, jobId: 42 })}`);
    expectFieldError(answer, 'cursor');
  });

  it('answers 400 for a jobs cursor of another tenant, with missing keys, or too long', async () => {
    expectFieldError(await api('GET', `/v1/jobs?cursor=${cursorOf({ tenantId: 'other', jobId: 'x' })}`), 'cursor');
    expectFieldError(await api('GET', `/v1/jobs?cursor=${cursorOf({ tenantId: chronos.tenantId })}`), 'cursor');
    const huge = cursorOf({ tenantId: chronos.tenantId, jobId: 'x'.repeat(3_000) });
    expectFieldError(await api('GET', `/v1/jobs?cursor=${huge}`), 'cursor');
  });

  it('answers 400 for a runs cursor with wrong types, another job, or a sort key outside the range', async () => {
    const jobId = await createdJob();
    const pk = `${chronos.tenantId}#${jobId}`;
    const runs = (cursor: unknown) => api('GET', `/v1/jobs/${jobId}/runs?cursor=${cursorOf(cursor)}`);
    expectFieldError(await runs({ pk, sk: 12 }), 'cursor');
    expectFieldError(await runs({ pk: 7, sk: '0000000000001#001' }), 'cursor');
    expectFieldError(
      await runs({ pk: `${chronos.tenantId}#01JAAAAAAAAAAAAAAAAAAAAAAA`, sk: '0000000000001#001' }),
      'cursor',
    );
    expectFieldError(await runs({ pk, sk: 'zzzz' }), 'cursor');
    const from = new Date(Date.now() - 60_000).toISOString();
    const outside = await api(
      'GET',
      `/v1/jobs/${jobId}/runs?from=${encodeURIComponent(from)}&cursor=${cursorOf({ pk, sk: '0000000000001#001' })}`,
    );
    expectFieldError(outside, 'cursor');
  });

  it('answers 400 for a dead-letters cursor with wrong types or of another tenant', async () => {
    const good = {
      pk: `${chronos.tenantId}#01JAAAAAAAAAAAAAAAAAAAAAAA`,
      sk: '0000000000001#001',
      deadLetterTenant: chronos.tenantId,
      deadLetteredAt: 1,
    };
    expect((await api('GET', `/v1/dead-letters?cursor=${cursorOf(good)}`)).status).toBe(200);
    const wrongType = { ...good, deadLetteredAt: 'soon' };
    expectFieldError(await api('GET', `/v1/dead-letters?cursor=${cursorOf(wrongType)}`), 'cursor');
    const hugeNumber = { ...good, deadLetteredAt: 1e300 };
    expectFieldError(await api('GET', `/v1/dead-letters?cursor=${cursorOf(hugeNumber)}`), 'cursor');
    const otherTenant = { ...good, pk: 'other#01JAAAAAAAAAAAAAAAAAAAAAAA', deadLetterTenant: 'other' };
    expectFieldError(await api('GET', `/v1/dead-letters?cursor=${cursorOf(otherTenant)}`), 'cursor');
  });

  it('still pages through a listing with the cursors it issues', async () => {
    for (let i = 0; i < 3; i++) await createdJob();
    const first = await api('GET', '/v1/jobs?limit=2');
    expect(first.status).toBe(200);
    expect(typeof first.body.cursor).toBe('string');
    const second = await api('GET', `/v1/jobs?limit=2&cursor=${first.body.cursor}`);
    expect(second.status).toBe(200);
    expect(second.body.items[0].jobId > first.body.items[1].jobId).toBe(true);
  });
});

describe('query values and headers out of range are 400s naming them', () => {
  it('refuses from/to outside the calendar range, and from after to', async () => {
    const jobId = await createdJob();
    const runs = (query: string) => api('GET', `/v1/jobs/${jobId}/runs?${query}`);
    expectFieldError(await runs('from=0001-01-01T00:00:00Z'), 'from');
    expectFieldError(await runs(`to=${encodeURIComponent('+275760-09-13T00:00:00Z')}`), 'to');
    expectFieldError(await runs('to=9999-12-31T23:59:59Z'), 'to');
    expectFieldError(await runs('from=2030-01-01T00:00:00Z&to=2029-01-01T00:00:00Z'), 'to');
    expect((await runs('from=1970-01-01T00:00:00Z&to=2199-12-31T23:59:59.999Z')).status).toBe(200);
  });

  it('refuses unknown parameters and odd limits on the dead-letters listing', async () => {
    expectFieldError(await api('GET', '/v1/dead-letters?limit=1e1'), 'limit');
    expectFieldError(await api('GET', '/v1/dead-letters?limt=5'), 'limt');
  });

  it('answers If-Match values this API never issues with 400 or 409, never a 5xx, and changes nothing', async () => {
    const jobId = await createdJob();
    const before = await api('GET', `/v1/jobs/${jobId}`);
    for (const value of ['9'.repeat(400), '1e3', '-1', '"1.5"', '*', 'W/"x"', '"1", "2"', '0', '999999999999999']) {
      const answer = await api('PATCH', `/v1/jobs/${jobId}`, { name: 'renamed' }, { 'if-match': value });
      expect([400, 409], `${value} → ${answer.status}`).toContain(answer.status);
    }
    const after = await api('GET', `/v1/jobs/${jobId}`);
    expect(after.body.version).toBe(before.body.version);
  });

  it('answers 404 for a run id whose occurrence or attempt no run can have, and writes nothing', async () => {
    const jobId = await createdJob();
    for (const runId of [`${jobId}_9999999999999999_1`, `${jobId}_1700000000000_0`, `${jobId}_1700000000000_1000`]) {
      const answer = await api('POST', `/v1/runs/${runId}/retry`);
      expect(answer.status, runId).toBe(404);
    }
    expect((await api('GET', `/v1/jobs/${jobId}/runs`)).body.items).toEqual([]);
  });

  it('refuses an Idempotency-Key that is too long or not visible ASCII, and triggers nothing', async () => {
    const jobId = await createdJob({ type: 'interval', everySeconds: 3600, startAt: inAnHour() });
    for (const key of ['k'.repeat(129), 'two words', 'tab\there']) {
      expectFieldError(
        await api('POST', `/v1/jobs/${jobId}/trigger`, undefined, { 'idempotency-key': key }),
        'Idempotency-Key',
      );
    }
    const runs = await api('GET', `/v1/jobs/${jobId}/runs`);
    expect(runs.body.items).toEqual([]);
  });
});

describe('stream images are bounded before anything is computed from them', () => {
  it('ignores a run item holding numbers JavaScript cannot represent, and the runs stream moves on', async () => {
    // prepare: a run item no API would write, with numbers DynamoDB holds but JavaScript cannot
    const jobId = '01JAAAAAAAAAAAAAAAAAAAAAAB';
    await documents.send(
      new PutItemCommand({
        TableName: chronos.tables.runs,
        Item: {
          pk: { S: `${chronos.tenantId}#${jobId}` },
          sk: { S: '0000000000001#001' },
          tenantId: { S: chronos.tenantId },
          jobId: { S: jobId },
          runId: { S: `${jobId}_1_1` },
          status: { S: 'QUEUED' },
          scheduledFor: { N: '1e100' },
          attempt: { N: '1' },
          createdAt: { N: '123456789012345678901234567890' },
        },
      }),
    );
    // act: a well-behaved job due now, whose completion comes after the planted record on the stream
    const canary = await createdJob({ type: 'once', at: new Date().toISOString() });
    // assess: the completion handler reaches the canary's records and finishes its job
    const job = await eventually(
      () => api('GET', `/v1/jobs/${canary}`),
      (answer) => answer.body.status === 'COMPLETED',
      20_000,
    );
    expect(job.body.status).toBe('COMPLETED');
    // The planted record was read once and set aside, not retried until its batch was dropped.
    expect(logs.filter((message) => message.includes('dropped'))).toEqual([]);
  }, 30_000);
});

describe('a job stored before the bounds existed', () => {
  it('ends after its last representable occurrence instead of breaking the scanner', async () => {
    // prepare: a job as an older Chronos stored it, with an interval no later slot of which is representable
    const jobId = await createdJob({ type: 'interval', everySeconds: 3600, startAt: inAnHour() });
    const key = { tenantId: chronos.tenantId, jobId };
    const stored = (await documents.get({ TableName: chronos.tables.jobs, Key: key })).Item as Record<string, unknown>;
    const dueNow = Date.now();
    await documents.put({
      TableName: chronos.tables.jobs,
      Item: {
        ...stored,
        schedule: { type: 'interval', everySeconds: 9_000_000_000_000, startAt: dueNow },
        nextFireAt: dueNow,
      },
    });
    // act: a scanner pass plans it
    await chronos.invokeScanner();
    // assess: its one representable occurrence runs, then the job ends; the scanner keeps its heartbeat
    const job = await eventually(
      () => api('GET', `/v1/jobs/${jobId}`),
      (answer) => answer.body.status === 'COMPLETED',
      20_000,
    );
    expect(job.body.nextFireAt).toBeNull();
    const calls = target.callsTo('/edge').filter((call) => call.headers['idempotency-key'] === `${jobId}:${dueNow}`);
    expect(calls).toHaveLength(1);
    // The full check (the scanner's heartbeat among it) answers the admin token only.
    expect((await apiAs(chronos.apiUrl, ADMIN_TOKEN)('GET', '/v1/health?deep=true')).status).toBe(200);
  }, 30_000);
});
