/**
 * The API cannot be flooded through its public or operator doors, end to end through the local
 * runtime: unauthenticated health calls are answered from memory (no DynamoDB or SQS request,
 * counted at every SDK client the handlers create), the full health check is the admin token's
 * only and taken at most once per 5 s per process, and the admin token opens the admin routes
 * only, never the tenant routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClientMiddleware } from '#adapters/aws-clients';
import { FULL_CHECK_CACHE_MS } from '#handlers/api/health';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type Api, apiAs } from './support/tenant-api.ts';

const ADMIN_TOKEN = 'chronos-e2e-api-flood-operator';
/** Requests the handlers' SDK clients sent, by `Service.Operation`. */
const sent = new Map<string, number>();
let unregister: () => void;
let chronos: LocalChronos;
let anonymous: Api;
let tenant: Api;
let admin: Api;

function requestsSent(): number {
  return [...sent.values()].reduce((sum, n) => sum + n, 0);
}

beforeAll(async () => {
  // Registered before the handler modules load, so every client they create counts its requests.
  unregister = registerClientMiddleware((service, stack) => {
    stack.add(
      // biome-ignore lint/suspicious/noExplicitAny: one middleware for every command of the service
      (next: any, context: any) => async (args: any) => {
        const name = `${service}.${String(context.commandName).replace(/Command$/, '')}`;
        sent.set(name, (sent.get(name) ?? 0) + 1);
        return next(args);
      },
      { step: 'initialize', name: 'floodTestCounter', priority: 'high' },
    );
  });
  chronos = await startLocalChronos({
    adminToken: ADMIN_TOKEN,
    // The scanner runs only when asked: nothing but the calls under test sends requests.
    scannerIntervalMs: 3_600_000,
    components: { executor: false, completion: false, deadLetters: false },
    log: () => undefined,
  });
  anonymous = apiAs(chronos.apiUrl, undefined);
  tenant = apiAs(chronos.apiUrl, chronos.token);
  admin = apiAs(chronos.apiUrl, ADMIN_TOKEN);
  await chronos.invokeScanner();
}, 60_000);

afterAll(async () => {
  unregister?.();
  await chronos?.stop();
});

describe('GET /v1/health', () => {
  it('answers a burst of calls without the admin token from memory: liveness only, no DynamoDB or SQS request', async () => {
    const before = requestsSent();
    const sentBefore = Object.fromEntries(sent);
    const started = Date.now();
    const callers = [anonymous, tenant, apiAs(chronos.apiUrl, 'not-a-token-of-anyone-at-all')];
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (callers[i % 3] as Api)('GET', '/v1/health')),
    );

    for (const answer of answers)
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 200,
        body: { status: 'ok' },
      });
    expect(Object.fromEntries(sent), 'requests sent during the burst').toEqual(sentBefore);
    expect(requestsSent() - before).toBe(0);
    // Generous for two shared cores: 300 answers from memory, not 300 × 5 probes.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('gives the full check to the admin token, taken once for every call within 5 s', async () => {
    const before = requestsSent();
    const first = await admin('GET', '/v1/health?deep=true');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({
      status: 'ok',
      checks: { jobsTable: 'ok', runsTable: 'ok', tenantsTable: 'ok', dispatchQueue: 'ok', scannerHeartbeat: 'ok' },
      failing: [],
      checkedAt: expect.any(String),
    });
    const probed = requestsSent() - before;
    // Three table probes, the queue's attributes and the heartbeats: the counter sees the check.
    expect(probed).toBeGreaterThanOrEqual(5);

    const afterFirst = requestsSent();
    const burst = await Promise.all(Array.from({ length: 50 }, () => admin('GET', '/v1/health')));
    for (const answer of burst) expect(answer.body).toEqual(first.body);
    expect(requestsSent() - afterFirst).toBe(0);
    expect(Date.now() - Date.parse(first.body.checkedAt)).toBeLessThan(FULL_CHECK_CACHE_MS);

    // Past the cache's life, the next admin call takes a new check.
    await new Promise((resolve) => setTimeout(resolve, FULL_CHECK_CACHE_MS));
    const later = await admin('GET', '/v1/health');
    expect(later.status).toBe(200);
    expect(Date.parse(later.body.checkedAt)).toBeGreaterThan(Date.parse(first.body.checkedAt));
    expect(requestsSent() - afterFirst).toBe(probed);
  }, 30_000);

  it('answers ?deep=true (the full check, taken now) to the admin token only: 401 for anyone else', async () => {
    const before = requestsSent();
    for (const caller of [anonymous, tenant]) {
      const answer = await caller('GET', '/v1/health?deep=true');
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHORIZED');
    }
    expect(requestsSent() - before).toBe(0);

    const cached = await admin('GET', '/v1/health');
    const fresh = await admin('GET', '/v1/health?deep=true');
    expect(fresh.status).toBe(200);
    expect(Date.parse(fresh.body.checkedAt)).toBeGreaterThanOrEqual(Date.parse(cached.body.checkedAt));
    expect(requestsSent()).toBeGreaterThan(before);
  });
});

describe('the admin token', () => {
  it('is refused (403) on every tenant route, and writes nothing', async () => {
    const created = await tenant('POST', '/v1/jobs', {
      target: { url: 'https://example.com/hook' },
      schedule: { type: 'once', at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const jobId = created.body.jobId as string;
    const job = { target: { url: 'https://example.com/admin' }, schedule: { type: 'once' } };

    const attempts: Array<[string, string, unknown?]> = [
      ['POST', '/v1/jobs', job],
      ['GET', '/v1/jobs'],
      ['GET', `/v1/jobs/${jobId}`],
      ['GET', `/v1/jobs/${jobId}/runs`],
      ['PATCH', `/v1/jobs/${jobId}`, { timeoutSeconds: 5 }],
      ['DELETE', `/v1/jobs/${jobId}`],
      ['POST', `/v1/jobs/${jobId}/pause`],
      ['POST', `/v1/jobs/${jobId}/resume`],
      ['POST', `/v1/jobs/${jobId}/trigger`],
      ['GET', '/v1/dead-letters'],
      ['POST', '/v1/runs/01JAAAAAAAAAAAAAAAAAAAAAAA/retry'],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await admin(method, path, body);
      expect({ call: `${method} ${path}`, status: answer.status, code: answer.body?.error?.code }).toEqual({
        call: `${method} ${path}`,
        status: 403,
        code: 'FORBIDDEN',
      });
    }

    // The tenant's job is untouched, and no job was created under any name.
    const mine = await tenant('GET', `/v1/jobs/${jobId}`);
    expect(mine.body).toMatchObject({ status: 'ACTIVE', timeoutSeconds: expect.any(Number) });
    expect(mine.body.timeoutSeconds).not.toBe(5);
    const listed = await tenant('GET', '/v1/jobs');
    expect(listed.body.items.map((item: { jobId: string }) => item.jobId)).toEqual([jobId]);
  });

  it('still opens the admin routes: the system view and the all-tenant stats', async () => {
    const system = await admin('GET', '/v1/monitoring/system');
    expect(system.status, JSON.stringify(system.body)).toBe(200);
    expect(system.body.dispatchQueue).toBeDefined();

    const stats = await admin('GET', '/v1/monitoring/stats?window=5m');
    expect(stats.status, JSON.stringify(stats.body)).toBe(200);
    expect(stats.body.scope).toBe('*');
    const oneTenant = await admin('GET', `/v1/monitoring/stats?window=5m&tenantId=${chronos.tenantId}`);
    expect(oneTenant.body.scope).toBe(chronos.tenantId);

    // And a tenant still gets its own stats, not the system view.
    expect((await tenant('GET', '/v1/monitoring/stats?window=5m')).body.scope).toBe(chronos.tenantId);
    expect((await tenant('GET', '/v1/monitoring/system')).status).toBe(403);
  });
});
