/**
 * The HTTP routes of async runs through the local runtime (real handlers, local IAM from the
 * synthesized template, the gateway's validation): the callback routes with their token as the
 * only credential, a run's cancel, and GET /v1/runs/{runId} with its checkpoint.
 *
 * Only the API runs: no executor claims the runs. An async run is planted as the executor leaves
 * it when it calls (its job's `async` settings copied, RUNNING under a lease), and its token is
 * sealed with the stored keys as the executor seals it (callback-key-store.ts, callback-token.ts).
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredCallbackKeys } from '#adapters/dynamodb/callback-key-store';
import { runTableKey } from '#adapters/dynamodb/run-item';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import {
  type CallbackClaims,
  MAX_CALLBACK_TOKEN_CHARS,
  newCallbackKey,
  sealCallbackToken,
} from '#core/async/callback-token';
import { parseRunId } from '#core/run-id';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { localDocuments } from '../support/local-documents.ts';
import { type Answer, type Api, apiAs } from './support/tenant-api.ts';

const SECRETS_KEY = LocalSecretCipher.generateKey();
const EXECUTOR = 'executor-under-test';

let chronos: LocalChronos;
let documents: DynamoDBDocument;
let api: Api;
let anonymous: Api;
let jobId: string;

beforeAll(async () => {
  chronos = await startLocalChronos({
    scannerIntervalMs: 0,
    secretsLocalKey: SECRETS_KEY,
    components: { scanner: false, executor: false, completion: false, deadLetters: false, notifier: false },
    log: () => undefined,
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
  api = apiAs(chronos.apiUrl, chronos.token);
  anonymous = apiAs(chronos.apiUrl, undefined);
  const created = await api('POST', '/v1/jobs', {
    target: { url: 'http://127.0.0.1:9/worker' },
    schedule: { type: 'interval', everySeconds: 86_400, startAt: new Date(Date.now() + 3_600_000).toISOString() },
    retry: { maxAttempts: 1 },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  jobId = created.body.jobId;
});

afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
});

/** The keys as the executor holds them: it makes the first (a conditional put), the API only opens them. */
const executorKeys = () =>
  new StoredCallbackKeys(documents, chronos.tables.tenants, new LocalSecretCipher(SECRETS_KEY)).keys();

interface PlantedRun {
  runId: string;
  claims: CallbackClaims;
  token: string;
}

/**
 * A triggered run of the job (QUEUED, no executor here), made async as the executor's claim leaves
 * it: the job's `async` settings copied, and unless `queued`, RUNNING under the executor's lease.
 */
async function plantAsyncRun(options: { queued?: boolean; sync?: boolean } = {}): Promise<PlantedRun> {
  const triggered = await api('POST', `/v1/jobs/${jobId}/trigger`);
  expect(triggered.status, JSON.stringify(triggered.body)).toBe(202);
  const runId = triggered.body.runId as string;
  const claims = { tenantId: chronos.tenantId, ...(parseRunId(runId) as Omit<CallbackClaims, 'tenantId'>) };
  const now = Date.now();
  const sets: Record<string, unknown> = {
    ...(options.sync
      ? {}
      : { async: { heartbeatTimeoutSeconds: 60, maxDurationSeconds: 3600, cancelGraceSeconds: 30 } }),
    ...(options.queued
      ? {}
      : { status: 'RUNNING', leaseOwner: EXECUTOR, claimedAt: now, startedAt: now, leaseExpiresAt: now + 600_000 }),
  };
  if (Object.keys(sets).length > 0) {
    const names = Object.fromEntries(Object.keys(sets).map((name) => [`#${name}`, name]));
    const values = Object.fromEntries(Object.entries(sets).map(([name, value]) => [`:${name}`, value]));
    await documents.update({
      TableName: chronos.tables.runs,
      Key: runTableKey(claims),
      UpdateExpression: `SET ${Object.keys(sets)
        .map((name) => `#${name} = :${name}`)
        .join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }
  return { runId, claims, token: sealCallbackToken(claims, await executorKeys()) };
}

const runItem = async (claims: CallbackClaims) =>
  (await documents.get({ TableName: chronos.tables.runs, Key: runTableKey(claims), ConsistentRead: true })).Item;

/** The three callback routes with one token: what each answers. */
async function everyCallbackRoute(token: string): Promise<Answer[]> {
  const path = `/v1/callbacks/${token}`;
  return [
    await anonymous('GET', path),
    await anonymous('POST', `${path}/heartbeat`, { progress: 1 }),
    await anonymous('POST', `${path}/complete`, { status: 'succeeded' }),
  ];
}

/** `token` with one character of its payload changed (the MAC no longer matches it). */
function tampered(token: string, at: number): string {
  const bytes = Buffer.from(token, 'base64url');
  bytes[at] = (bytes[at] as number) ^ 0x01;
  return bytes.toString('base64url');
}

describe('the local runtime', () => {
  it("tells the executor this API's base URL, where async jobs' workers call back", () => {
    expect(process.env.CALLBACK_BASE_URL).toBe(chronos.apiUrl);
  });
});

describe('the callback keys', () => {
  it('answer a token sealed after the API first looked (no key then) at once: an empty key list is not cached', async () => {
    // Before any async call: no key exists, every token is refused.
    const early = await anonymous(
      'GET',
      `/v1/callbacks/${sealCallbackToken({ tenantId: 't', jobId: 'j', scheduledFor: 1, attempt: 1 }, [newCallbackKey()])}`,
    );
    expect(early.status).toBe(401);
    const run = await plantAsyncRun();
    const state = await anonymous('GET', `/v1/callbacks/${run.token}`);
    expect(state.status, JSON.stringify(state.body)).toBe(200);
  });
});

describe('tokens that are not a valid token for an async run', () => {
  it('refuse forged, tampered, other-tenant, too long and ill-formed tokens with 401 on every route, changing nothing', async () => {
    const run = await plantAsyncRun();
    const before = await runItem(run.claims);
    const forged = sealCallbackToken(run.claims, [newCallbackKey()]);
    // Byte 10 on: the tenant id (after version, scheduledFor, attempt and its length).
    const otherTenant = tampered(run.token, 10);
    const otherAttempt = tampered(run.token, 8);
    const cases = [
      forged,
      otherTenant,
      otherAttempt,
      'A'.repeat(MAX_CALLBACK_TOKEN_CHARS + 1),
      'not.base64url',
      `${run.token}=`,
    ];
    for (const token of cases) {
      for (const answer of await everyCallbackRoute(encodeURIComponent(token))) {
        expect(answer.status, token).toBe(401);
        expect(answer.body.error.code).toBe('INVALID_CALLBACK_TOKEN');
      }
    }
    expect(await runItem(run.claims)).toEqual(before);
  });

  it('answer a validly sealed token for no run, or for a run that is not async, with 404 RUN_NOT_FOUND', async () => {
    const keys = await executorKeys();
    const unknown = sealCallbackToken(
      { tenantId: chronos.tenantId, jobId, scheduledFor: 1_700_000_000_000, attempt: 1 },
      keys,
    );
    const sync = await plantAsyncRun({ sync: true });
    for (const token of [unknown, sync.token]) {
      for (const answer of await everyCallbackRoute(token)) {
        expect(answer.status).toBe(404);
        expect(answer.body.error.code).toBe('RUN_NOT_FOUND');
      }
    }
    expect((await runItem(sync.claims))?.status).toBe('RUNNING');
  });
});

describe('an async run through its callbacks', () => {
  it('takes heartbeats with progress and a checkpoint, shown by the callback GET and GET /v1/runs/{runId}', async () => {
    const run = await plantAsyncRun();
    const beat = await anonymous('POST', `/v1/callbacks/${run.token}/heartbeat`, {
      progress: 40,
      message: 'copied 4 of 10',
      checkpoint: { offset: 4, files: ['a', 'b'] },
    });
    expect(beat.status, JSON.stringify(beat.body)).toBe(200);
    expect(beat.body.cancelRequested).toBe(false);
    expect(Date.parse(beat.body.heartbeatDeadline)).toBeGreaterThan(Date.now() + 50_000);

    const state = await anonymous('GET', `/v1/callbacks/${run.token}`);
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({
      runId: run.runId,
      attempt: 1,
      active: true,
      cancelRequested: false,
      heartbeatDeadline: beat.body.heartbeatDeadline,
      checkpoint: { offset: 4, files: ['a', 'b'] },
      checkpointAttempt: 1,
    });
    expect(Date.parse(state.body.checkpointAt)).toBeGreaterThan(0);

    const shown = await api('GET', `/v1/runs/${run.runId}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      runId: run.runId,
      status: 'RUNNING',
      checkpoint: { offset: 4, files: ['a', 'b'] },
    });
    // An empty body only proves the worker alive.
    const empty = await anonymous('POST', `/v1/callbacks/${run.token}/heartbeat`, '');
    expect(empty.status, JSON.stringify(empty.body)).toBe(200);
  });

  it('completes once: the same completion again answers the same run, another one 409 RUN_ENDED', async () => {
    const run = await plantAsyncRun();
    // Before any 202 was recorded: accepted.
    const completion = { status: 'succeeded', output: { rows: 1000 } };
    const done = await anonymous('POST', `/v1/callbacks/${run.token}/complete`, completion);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ runId: run.runId, status: 'SUCCEEDED' });
    const again = await anonymous('POST', `/v1/callbacks/${run.token}/complete`, completion);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done.body);

    const other = await anonymous('POST', `/v1/callbacks/${run.token}/complete`, { status: 'failed', error: 'late' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('RUN_ENDED');
    const beat = await anonymous('POST', `/v1/callbacks/${run.token}/heartbeat`, {});
    expect(beat.status).toBe(409);
    expect(beat.body.error.code).toBe('RUN_ENDED');
    const state = await anonymous('GET', `/v1/callbacks/${run.token}`);
    expect(state.body).toMatchObject({ active: false, checkpoint: null, checkpointAt: null, checkpointAttempt: null });
    expect((await runItem(run.claims))?.status).toBe('SUCCEEDED');
  });

  it('refuses bad bodies with 400 naming the field, and writes nothing for them', async () => {
    const run = await plantAsyncRun();
    const before = await runItem(run.claims);
    const heartbeat = `/v1/callbacks/${run.token}/heartbeat`;
    const complete = `/v1/callbacks/${run.token}/complete`;
    const cases: Array<[string, unknown, string]> = [
      [heartbeat, { progress: 101 }, 'progress'],
      [heartbeat, { progress: '5' }, 'progress'],
      [heartbeat, { message: 'é'.repeat(600) }, 'message'],
      [heartbeat, { checkpoint: 'x'.repeat(17 * 1024) }, 'checkpoint'],
      [heartbeat, { surprise: true }, 'surprise'],
      [complete, {}, 'status'],
      [complete, { status: 'done' }, 'status'],
      [complete, { status: 'failed', retryable: 'no' }, 'retryable'],
      [complete, { status: 'succeeded', output: { blob: 'x'.repeat(65 * 1024) } }, 'output'],
      [complete, { status: 'failed', error: 'e'.repeat(5000) }, 'error'],
      [heartbeat, '{"progress":', 'body'],
    ];
    for (const [path, body, field] of cases) {
      const answer = await anonymous('POST', path, body);
      expect(answer.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      expect(answer.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(await runItem(run.claims)).toEqual(before);
  });

  it('refuses bodies nested deep enough to parse and then overflow a recursive check with 400, here and on POST /v1/jobs', async () => {
    const run = await plantAsyncRun();
    // Around 2,200 levels parse, then overflowed the well-formed check's recursion (a 500); deeper fail to parse.
    for (let depth = 1_500; depth <= 3_000; depth += 100) {
      const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const answers = [
        await anonymous('POST', `/v1/callbacks/${run.token}/complete`, `{"status":"succeeded","output":${nested}}`),
        await anonymous('POST', `/v1/callbacks/${run.token}/heartbeat`, `{"checkpoint":${nested}}`),
        await api('POST', '/v1/jobs', `{"name":${nested}}`),
      ];
      for (const answer of answers) {
        expect(answer.status, `depth ${depth}: ${JSON.stringify(answer.body)}`).toBe(400);
        expect(answer.body.error.details.length).toBeGreaterThan(0);
      }
    }
    expect((await runItem(run.claims))?.status).toBe('RUNNING');
  });
});

describe('a run of the tenant', () => {
  it('is shown by GET /v1/runs/{runId} with a null checkpoint, and is not found for another tenant', async () => {
    const run = await plantAsyncRun({ queued: true, sync: true });
    const own = await api('GET', `/v1/runs/${run.runId}`);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ runId: run.runId, jobId, status: 'QUEUED', checkpoint: null });

    const { token } = await chronos.tenants.create('other-tenant');
    const other = apiAs(chronos.apiUrl, token.token);
    for (const [method, path] of [
      ['GET', `/v1/runs/${run.runId}`],
      ['POST', `/v1/runs/${run.runId}/cancel`],
    ] as const) {
      const answer = await other(method, path);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error.message).toBe(`run ${run.runId} not found`);
    }
    expect((await runItem(run.claims))?.status).toBe('QUEUED');
    const unknown = await api('GET', `/v1/runs/${jobId}_1700000000000_1`);
    expect(unknown.status).toBe(404);
    expect((await api('GET', '/v1/runs/not-a-run-id')).status).toBe(404);
    expect((await anonymous('GET', `/v1/runs/${run.runId}`)).status).toBe(401);
  });

  it('is cancelled at once while QUEUED; a cancel of an ended run is 409 RUN_ENDED', async () => {
    const run = await plantAsyncRun({ queued: true });
    // No call was made yet that a worker could answer for.
    const early = await anonymous('POST', `/v1/callbacks/${run.token}/heartbeat`, {});
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('RUN_NOT_STARTED');
    const cancelled = await api('POST', `/v1/runs/${run.runId}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toMatchObject({ runId: run.runId, status: 'CANCELLED' });
    expect((await runItem(run.claims))?.status).toBe('CANCELLED');

    const again = await api('POST', `/v1/runs/${run.runId}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('RUN_ENDED');
  });

  it('asks an async run in flight to stop: its next heartbeat answers cancelRequested', async () => {
    const run = await plantAsyncRun();
    expect((await anonymous('POST', `/v1/callbacks/${run.token}/heartbeat`, {})).status).toBe(200);
    const cancel = await api('POST', `/v1/runs/${run.runId}/cancel`);
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body.status).toBe('RUNNING');
    const beat = await anonymous('POST', `/v1/callbacks/${run.token}/heartbeat`, { progress: 90 });
    expect(beat.body.cancelRequested).toBe(true);
    expect((await anonymous('GET', `/v1/callbacks/${run.token}`)).body.cancelRequested).toBe(true);
    const stopped = await anonymous('POST', `/v1/callbacks/${run.token}/complete`, {
      status: 'failed',
      error: 'cancelled',
    });
    expect(stopped.status).toBe(200);
    expect(stopped.body.status).not.toBe('RUNNING');
  });

  it('a synchronous call in progress cannot be cancelled: 409 RUN_NOT_CANCELLABLE', async () => {
    const run = await plantAsyncRun({ sync: true });
    const answer = await api('POST', `/v1/runs/${run.runId}/cancel`);
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('RUN_NOT_CANCELLABLE');
    expect((await runItem(run.claims))?.status).toBe('RUNNING');
  });
});

describe('anything sent to the callback routes', () => {
  it('is answered 200 or a 4xx in the error shape, never a 5xx', async () => {
    const run = await plantAsyncRun();
    const keys = await executorKeys();
    const token = fc.oneof(
      fc.constant(run.token),
      fc.nat({ max: run.token.length - 1 }).map((at) => tampered(run.token, Math.min(at, 60))),
      fc.string({ maxLength: 300 }).map(encodeURIComponent),
      fc.stringMatching(/^[A-Za-z0-9_-]{1,260}$/),
      fc
        .record({
          tenantId: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.isWellFormed()),
          jobId: fc.stringMatching(/^[0-9A-Z]{1,26}$/),
          scheduledFor: fc.integer({ min: 1_000_000_000_000, max: 4_000_000_000_000 }),
          attempt: fc.integer({ min: 1, max: 999 }),
        })
        .map((claims) => sealCallbackToken(claims, keys)),
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 5 }).map((value) => JSON.stringify(value)),
      fc
        .record(
          {
            progress: fc.oneof(fc.double(), fc.integer(), fc.string()),
            message: fc.oneof(fc.string({ maxLength: 1100 }), fc.integer()),
            checkpoint: fc.jsonValue({ maxDepth: 4 }),
            status: fc.constantFrom('succeeded', 'failed', 'SUCCEEDED', 'other'),
            output: fc.jsonValue({ maxDepth: 4 }),
            error: fc.oneof(fc.string({ maxLength: 100 }), fc.constant(null)),
            retryable: fc.oneof(fc.boolean(), fc.string()),
          },
          { requiredKeys: [] },
        )
        .map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 100 }),
      fc.constantFrom('{', 'null', '[]', '"\\ud800"', `{"checkpoint":${'['.repeat(3000)}${']'.repeat(3000)}}`),
    );
    const route = fc.constantFrom('GET ', 'POST /heartbeat', 'POST /complete');
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(route, token, body, async (which, t, b) => {
        const [method, suffix] = which.split(' ') as [string, string];
        const response = await fetch(`${chronos.apiUrl}/v1/callbacks/${t}${suffix}`, {
          method,
          headers: { 'content-type': 'application/json' },
          ...(b === undefined || method === 'GET' ? {} : { body: b }),
        });
        const text = await response.text();
        seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
        const what = `${which} ${t.slice(0, 80)} ${String(b).slice(0, 120)} → ${response.status} ${text.slice(0, 200)}`;
        expect(response.status, what).toBeLessThan(500);
        if (response.status >= 400) {
          const parsed = JSON.parse(text);
          expect(typeof parsed.error?.code, what).toBe('string');
          expect(Array.isArray(parsed.error?.details), what).toBe(true);
        }
      }),
      { numRuns: 150, seed: 20 },
    );
    // The draws reached past the token check and the body checks alike.
    expect(seen.get(401) ?? 0).toBeGreaterThan(0);
    expect(seen.get(400) ?? 0).toBeGreaterThan(0);
    expect([...seen.keys()].some((status) => status === 200 || status === 404 || status === 409)).toBe(true);
  }, 120_000);
});
