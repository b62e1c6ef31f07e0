/**
 * Every path that creates runs outside the schedule is metered by the tenant's trigger bucket
 * (quotas triggersPerSecond / triggerBurst, set with `npm run admin -- tenants create --quota`),
 * and Chronos is not a way into itself: its own API port and the emulators' ports are refused as
 * targets even with loopback allowed.
 *
 * The self-trigger loop: a job whose target is a relay that triggers the same job again (the way
 * a target pointing at Chronos' own trigger route would, were it not refused). The bucket holds
 * the loop to its rate while another tenant's jobs still start within their SLA, and pausing the
 * job stops the loop: a PAUSED job is not triggered.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type AdminIo, runAdmin } from '../../bin/admin-commands.ts';
import { type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { bystanderLags } from './support/bystander-lags.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

const SLA_MS = 5_000;

let chronos: LocalChronos;
let target: HttpTarget;
/**
 * Stands in for Chronos' own trigger route as a target (which the URL guard refuses): each call
 * triggers the loop's job through the API and answers with what the API answered, Retry-After
 * included, so a 429 is retried by Chronos as any target's 429 would be.
 */
let relay: { api: Api; jobId: string } | undefined;
let relayServer: Server;
let relayUrl: string;
const relayAnswers: Array<{ at: number; status: number }> = [];

async function startRelay(): Promise<void> {
  relayServer = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      if (!relay) return void res.end('no loop yet');
      const answer = await relay.api('POST', `/v1/jobs/${relay.jobId}/trigger`);
      relayAnswers.push({ at: Date.now(), status: answer.status });
      const retryAfter = answer.headers.get('retry-after');
      res.writeHead(answer.status, retryAfter === null ? {} : { 'retry-after': retryAfter });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => relayServer.listen(0, '127.0.0.1', resolve));
  relayUrl = `http://127.0.0.1:${(relayServer.address() as AddressInfo).port}/relay`;
}

beforeAll(async () => {
  target = await startHttpTarget();
  await startRelay();
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 1_000,
    scanHorizonSeconds: 10,
    log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
  await new Promise((resolve) => relayServer?.close(resolve));
});

/** Creates a tenant and a token with the admin command, as an operator would; returns its API client. */
async function tenantByAdmin(name: string, ...quotas: string[]): Promise<Api & { tenantId: string }> {
  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    const io: AdminIo = {
      env: { CHRONOS_TENANTS_TABLE: chronos.tables.tenants, SECRETS_LOCAL_KEY: chronos.secretsLocalKey },
      out: (text) => lines.push(text),
      err: () => undefined,
    };
    expect(await runAdmin(argv, io)).toBe(0);
    return JSON.parse(lines.join('\n'));
  };
  const tenant = await run('tenants', 'create', name, ...quotas.flatMap((quota) => ['--quota', quota]));
  const token = await run('tokens', 'create', tenant.tenantId);
  return Object.assign(apiAs(chronos.apiUrl, token.token), { tenantId: tenant.tenantId as string });
}

/** The trigger bucket's `tat` (GCRA), as stored; undefined before its first use. */
async function triggerTatOf(tenantId: string): Promise<number | undefined> {
  const documents = localDocuments(chronos.endpoints.dynamodb);
  try {
    const { Item } = await documents.get({
      TableName: chronos.tables.tenants,
      Key: { pk: `TENANT#${tenantId}`, sk: 'BUCKET#trigger' },
    });
    return Item?.tat as number | undefined;
  } finally {
    documents.destroy();
  }
}

const hourly = (url: string) => ({
  target: { url },
  schedule: { type: 'interval', everySeconds: 3600, startAt: new Date(Date.now() + 3_600_000).toISOString() },
});

async function runsOf(api: Api, jobId: string): Promise<Array<Record<string, unknown>>> {
  const answer = await api('GET', `/v1/jobs/${jobId}/runs?limit=100`);
  expect(answer.status).toBe(200);
  return answer.body.items;
}

describe('the trigger bucket', () => {
  it('answers 429 with Retry-After beyond the burst and creates nothing for the refused requests', async () => {
    const api = await tenantByAdmin('metered', 'triggersPerSecond=1', 'triggerBurst=3');
    const job = (await api('POST', '/v1/jobs', hourly(target.url('/metered')))).body;

    const answers = await Promise.all(Array.from({ length: 6 }, () => api('POST', `/v1/jobs/${job.jobId}/trigger`)));

    // Three tokens at once; a fourth only if the 1 s refill fell among these requests.
    const accepted = answers.filter((answer) => answer.status === 202).length;
    expect(accepted === 3 || accepted === 4).toBe(true);
    const refused = answers.filter((answer) => answer.status !== 202);
    expect(refused.length).toBe(6 - accepted);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.body.error.code).toBe('RATE_LIMITED');
    }
    expect(await runsOf(api, job.jobId)).toHaveLength(accepted);
  });

  it('meters a PATCHed schedule due at once (429 when the bucket is empty, job unchanged), not one beyond the horizon', async () => {
    const api = await tenantByAdmin('patching', 'triggersPerSecond=1', 'triggerBurst=2');
    const job = (await api('POST', '/v1/jobs', hourly(target.url('/patched')))).body;
    const patch = async (at: number) => {
      const current = (await api('GET', `/v1/jobs/${job.jobId}`)).body;
      const answer = await api(
        'PATCH',
        `/v1/jobs/${job.jobId}`,
        { schedule: { type: 'once', at: new Date(at).toISOString() } },
        { 'if-match': String(current.version) },
      );
      return { answer, versionBefore: current.version as number };
    };

    // Beyond the 10 s horizon: nothing materialized, no token.
    expect((await patch(Date.now() + 3_600_000)).answer.status).toBe(200);
    expect(await triggerTatOf(api.tenantId)).toBeUndefined();
    // Due at once: one token (tat moves by 1/rate from now).
    const before = Date.now();
    expect((await patch(Date.now() + 5_000)).answer.status).toBe(200);
    const tat = await triggerTatOf(api.tenantId);
    expect(tat).toBeGreaterThanOrEqual(before + 1_000);
    expect(tat).toBeLessThanOrEqual(Date.now() + 1_000);

    // Emptied, the next such PATCH is refused whole (a refill racing the request gets another try).
    let refused: Awaited<ReturnType<typeof patch>> | undefined;
    for (let attempt = 0; attempt < 3 && !refused; attempt++) {
      while ((await api('POST', `/v1/jobs/${job.jobId}/trigger`)).status === 202) {}
      const tried = await patch(Date.now() + 5_000);
      if (tried.answer.status === 429) refused = tried;
    }
    expect(refused?.answer.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused?.answer.body.error.code).toBe('RATE_LIMITED');
    expect((await api('GET', `/v1/jobs/${job.jobId}`)).body.version).toBe(refused?.versionBefore);
  });

  it('meters resume catch-up: refused whole (429) leaves the job PAUSED with no catch-up run', async () => {
    const api = await tenantByAdmin('resuming', 'triggersPerSecond=1', 'triggerBurst=3');
    const job = (
      await api('POST', '/v1/jobs', {
        target: { url: target.url('/catch-up') },
        schedule: { type: 'interval', everySeconds: 1, startAt: new Date(Date.now() + 3_000).toISOString() },
        misfire: 'fire_all',
      })
    ).body;
    expect((await api('POST', `/v1/jobs/${job.jobId}/pause`)).status).toBe(200);
    const other = (await api('POST', '/v1/jobs', hourly(target.url('/other')))).body;
    // Six seconds of missed occurrences: more than the burst, so the catch-up needs the whole
    // bucket. A trigger of another job takes one token: an idle bucket that gave one is one short
    // for the next second.
    await new Promise((resolve) => setTimeout(resolve, 9_000));
    const runsBefore = (await runsOf(api, job.jobId)).length;
    expect((await api('POST', `/v1/jobs/${other.jobId}/trigger`)).status).toBe(202);

    const refused = await api('POST', `/v1/jobs/${job.jobId}/resume`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await api('GET', `/v1/jobs/${job.jobId}`)).body.status).toBe('PAUSED');
    expect(await runsOf(api, job.jobId)).toHaveLength(runsBefore);

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await api('POST', `/v1/jobs/${job.jobId}/resume`)).status).toBe(200);
    expect((await runsOf(api, job.jobId)).length).toBeGreaterThanOrEqual(runsBefore + 3);
  }, 60_000);

  it('refuses to trigger a PAUSED job (409): pause is what stops a job from calling', async () => {
    const api = await tenantByAdmin('pausing');
    const job = (await api('POST', '/v1/jobs', hourly(target.url('/paused')))).body;
    expect((await api('POST', `/v1/jobs/${job.jobId}/pause`)).status).toBe(200);

    expect((await api('POST', `/v1/jobs/${job.jobId}/trigger`)).status).toBe(409);
    expect(await runsOf(api, job.jobId)).toEqual([]);
  });
});

describe('a self-trigger loop', () => {
  it("is held to the tenant's trigger rate while another tenant's jobs start on time, and stops when paused", async () => {
    const looper = await tenantByAdmin('looper', 'triggersPerSecond=2', 'triggerBurst=4');
    const bystander = await tenantByAdmin('bystander');
    const loop = (
      await looper('POST', '/v1/jobs', {
        ...hourly(relayUrl),
        retry: { maxAttempts: 20, initialDelaySeconds: 1, maxDelaySeconds: 2 },
      })
    ).body;
    relay = { api: looper, jobId: loop.jobId };

    const started = Date.now();
    expect((await looper('POST', `/v1/jobs/${loop.jobId}/trigger`)).status).toBe(202);
    // The other tenant's jobs, due while the loop runs.
    const lags = await bystanderLags(bystander, target, [2_000, 4_000, 6_000, 8_000]);
    expect(Math.max(...lags)).toBeLessThanOrEqual(SLA_MS);

    // The loop really looped, and the bucket held it: occurrences (attempt 1) at most the burst
    // plus the rate since it started; its 429s were retried, as Chronos retries any target's 429.
    const elapsedSeconds = (Date.now() - started) / 1000;
    const occurrences = (await runsOf(looper, loop.jobId)).filter((run) => run.attempt === 1);
    expect(relayAnswers.map((answer) => answer.status)).toContain(429);
    expect(occurrences.length).toBeGreaterThanOrEqual(6);
    expect(occurrences.length).toBeLessThanOrEqual(4 + Math.ceil(2 * elapsedSeconds));

    // Pause: a run already triggered (or its retry) may still call once, and is refused (409); then nothing more.
    expect((await looper('POST', `/v1/jobs/${loop.jobId}/pause`)).status).toBe(200);
    const pausedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const callsAfterPause = relayAnswers.length;
    const runsAfterPause = (await runsOf(looper, loop.jobId)).length;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(relayAnswers.length).toBe(callsAfterPause);
    expect((await runsOf(looper, loop.jobId)).length).toBe(runsAfterPause);
    const answeredAfterPause = relayAnswers.filter((answer) => answer.at > pausedAt + 100);
    expect(answeredAfterPause.every((answer) => answer.status === 409)).toBe(true);
  }, 90_000);
});

describe("Chronos' own ports are not targets, loopback allowed or not", () => {
  const portOf = (url: string) => new URL(url).port;
  const scanBody = JSON.stringify({ TableName: 'chronos-local-jobs' });
  const signedLookingScan = {
    method: 'POST',
    headers: {
      'X-Amz-Target': 'DynamoDB_20120810.Scan',
      Authorization:
        'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-target, Signature=00',
      'Content-Type': 'application/x-amz-json-1.0',
    },
    body: scanBody,
  };

  it('refuses the DynamoDB Local, SQS, CloudWatch and API ports at creation (400 target.url) and onFailure.url', async () => {
    const api = apiAs(chronos.apiUrl, chronos.token);
    const { dynamodb, sqs, cloudwatch } = chronos.endpoints;
    const ports = [dynamodb, sqs, cloudwatch ?? '', chronos.apiUrl].map(portOf);
    expect(ports.every((port) => port !== '')).toBe(true);

    for (const port of ports) {
      for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
        const answer = await api('POST', '/v1/jobs', {
          target: { url: `http://${host}:${port}/`, ...signedLookingScan },
          schedule: { type: 'once' },
        });
        expect(answer.status).toBe(400);
        expect(answer.body.error.details).toContainEqual(expect.objectContaining({ field: 'target.url' }));
      }
    }
    const onFailure = await api('POST', '/v1/jobs', {
      target: { url: target.url('/fine') },
      onFailure: { url: `${chronos.apiUrl}/v1/jobs` },
      schedule: { type: 'once' },
    });
    expect(onFailure.status).toBe(400);
    expect(onFailure.body.error.details).toContainEqual(expect.objectContaining({ field: 'onFailure.url' }));

    const job = (await api('POST', '/v1/jobs', hourly(target.url('/fine')))).body;
    const patched = await api(
      'PATCH',
      `/v1/jobs/${job.jobId}`,
      { target: { url: `http://127.0.0.1:${portOf(dynamodb)}/`, ...signedLookingScan } },
      { 'if-match': String(job.version) },
    );
    expect(patched.status).toBe(400);
    expect(patched.body.error.details).toContainEqual(expect.objectContaining({ field: 'target.url' }));
  });

  it('ends a stored job aimed at DynamoDB Local as blocked_target at call time, naming the port', async () => {
    const api = apiAs(chronos.apiUrl, chronos.token);
    const job = (await api('POST', '/v1/jobs', hourly(target.url('/later')))).body;
    // Written past the API, as an older Chronos or a hand edit could have stored it.
    const documents = localDocuments(chronos.endpoints.dynamodb);
    const aimed = `http://127.0.0.1:${portOf(chronos.endpoints.dynamodb)}/`;
    await documents.update({
      TableName: chronos.tables.jobs,
      Key: { tenantId: chronos.tenantId, jobId: job.jobId },
      UpdateExpression: 'SET target = :target',
      ExpressionAttributeValues: { ':target': { url: aimed, ...signedLookingScan } },
    });
    documents.destroy();

    expect((await api('POST', `/v1/jobs/${job.jobId}/trigger`)).status).toBe(202);
    const deadline = Date.now() + 20_000;
    let runs = await runsOf(api, job.jobId);
    while (Date.now() < deadline && !runs.some((run) => run.status === 'FAILED')) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      runs = await runsOf(api, job.jobId);
    }
    expect(runs).toEqual([expect.objectContaining({ status: 'FAILED', errorType: 'blocked_target' })]);
    expect(String(runs[0]?.error)).toMatch(/port of Chronos itself/);
  }, 40_000);

  it('does not answer on another interface than loopback: the emulators listen on 127.0.0.1 only', async () => {
    const { networkInterfaces } = await import('node:os');
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
    if (external === undefined) return; // no other interface on this machine: nothing to reach
    for (const endpoint of [chronos.endpoints.dynamodb, chronos.endpoints.sqs]) {
      const reached = await new Promise<boolean>((resolve) => {
        const probe = request({ host: external, port: Number(portOf(endpoint)), method: 'GET', timeout: 2_000 }, () =>
          resolve(true),
        );
        probe.on('error', () => resolve(false));
        probe.on('timeout', () => {
          probe.destroy();
          resolve(false);
        });
        probe.end();
      });
      expect(reached).toBe(false);
    }
  });
});
