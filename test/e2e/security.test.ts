/**
 * Tenants and security end to end, through the local runtime: tokens (401 with no hint),
 * isolation of every route in ROUTES between tenants, quotas, and secret headers.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeToken } from '#core/tenants/manage-tenants';
import { ROUTES } from '#handlers/api/routes';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 2_000,
    scanHorizonSeconds: 10,
    // API Gateway caches the authorizer's answer per token (30 s deployed): 5 s here, so the
    // revoked token's cached answer ends within the test.
    authorizerCacheSeconds: 5,
    log: () => undefined,
  });
  documents = localDocuments(chronos.endpoints.dynamodb);
});
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
  await target?.close();
});

const later = () => ({ type: 'once', at: new Date(Date.now() + 3_600_000).toISOString() });

async function newTenant(name: string, quotas = {}): Promise<{ tenantId: string; token: string; api: Api }> {
  const { tenant, token } = await chronos.tenants.create(name, quotas);
  return { tenantId: tenant.tenantId, token: token.token, api: apiAs(chronos.apiUrl, token.token) };
}

async function itemsOf(tenantId: string) {
  const jobs = await documents.query({
    TableName: chronos.tables.jobs,
    KeyConditionExpression: 'tenantId = :t',
    ExpressionAttributeValues: { ':t': tenantId },
  });
  const runs = await documents.scan({
    TableName: chronos.tables.runs,
    FilterExpression: 'tenantId = :t',
    ExpressionAttributeValues: { ':t': tenantId },
  });
  // The workflow-runs table is keyed `<tenantId>#<workflowId>`: the tenant's workflow runs by their prefix.
  const workflowRuns = await documents.scan({
    TableName: chronos.tables.workflowRuns,
    FilterExpression: 'begins_with(pk, :t)',
    ExpressionAttributeValues: { ':t': `${tenantId}#` },
  });
  const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    `${a.pk}${a.sk}` < `${b.pk}${b.sk}` ? -1 : 1;
  return JSON.stringify({
    jobs: jobs.Items,
    runs: (runs.Items ?? []).sort((a, b) => (a.sk < b.sk ? -1 : 1)),
    workflowRuns: (workflowRuns.Items ?? []).sort(byKey),
  });
}

describe('authentication', () => {
  it('answers missing, malformed, unknown and revoked tokens with the same 401', async () => {
    const revoked = await newTenant('revoked');
    expect((await revoked.api('GET', '/v1/jobs')).status).toBe(200);
    const [issued] = await chronos.tenants.deps.tenants.listTokens(revoked.tenantId);
    await revokeToken(chronos.tenants.deps, issued?.tokenId as string, Date.now());
    // As on AWS, the answer cached for the token stands until it ends (docs/security.md)...
    expect((await revoked.api('GET', '/v1/jobs')).status).toBe(200);
    // ...and then the revoked token is refused.
    await eventually(
      () => revoked.api('GET', '/v1/jobs'),
      (answer) => answer.status === 401,
      10_000,
    );

    const answers = await Promise.all([
      apiAs(chronos.apiUrl, undefined)('GET', '/v1/jobs'),
      apiAs(chronos.apiUrl, 'x')('GET', '/v1/jobs'),
      apiAs(chronos.apiUrl, 'chronos_ThisTokenWasNeverIssuedToAnyoneAtAll123456')('GET', '/v1/jobs'),
      revoked.api('GET', '/v1/jobs'),
      apiAs(chronos.apiUrl, undefined)('GET', '/v1/jobs', undefined, { authorization: 'Basic dXNlcjpwdw==' }),
    ]);

    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
  });

  it('authenticates a token issued for a new tenant as that tenant', async () => {
    const team = await newTenant('team');
    const created = await team.api('POST', '/v1/jobs', { target: { url: target.url('/team') }, schedule: later() });
    expect(created.status).toBe(201);
    const stored = await documents.get({
      TableName: chronos.tables.jobs,
      Key: { tenantId: team.tenantId, jobId: created.body.jobId },
    });
    expect(stored.Item?.tenantId).toBe(team.tenantId);
  });
});

describe('tenant isolation of every route', () => {
  it("answers 404 for another tenant's job and run ids on every route, and changes nothing of theirs", async () => {
    const victim = await newTenant('victim');
    const attacker = await newTenant('attacker');
    const job = await victim.api('POST', '/v1/jobs', {
      target: { url: target.url('/victim') },
      schedule: { type: 'interval', everySeconds: 3600, startAt: new Date(Date.now() + 3_600_000).toISOString() },
      // A flow-control key of the victim's, for GET /v1/flow-control/{key}.
      flowControl: { key: 'victim-key', parallelism: 1 },
    });
    const triggered = await victim.api('POST', `/v1/jobs/${job.body.jobId}/trigger`);
    expect(triggered.status).toBe(202);
    await target.waitForCalls('/victim', 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // let the run's completion settle
    // A workflow without a schedule: nothing of it runs while the routes are walked.
    const workflow = await victim.api('POST', '/v1/workflows', {
      tasks: [{ key: 'only', target: { url: target.url('/victim-task') } }],
    });
    expect(workflow.status).toBe(201);
    // A workflow run of it, ended (its task called), so nothing of it moves while the routes are walked.
    const workflowRun = await victim.api('POST', `/v1/workflows/${workflow.body.workflowId}/trigger`);
    expect(workflowRun.status).toBe(202);
    await eventually(
      async () => (await victim.api('GET', `/v1/workflow-runs/${workflowRun.body.workflowRunId}`)).body,
      (run) => run.status === 'SUCCEEDED',
      15_000,
    );
    const before = await itemsOf(victim.tenantId);

    // The victim's real ids, by the collection a path parameter sits under (`/jobs/{…}`,
    // `/runs/{…}`), whatever the parameter is called: a route whose parameter the walk cannot fill
    // with a real id fails here instead of getting a trivial 404 for a made-up one.
    const realIds: Record<string, { id: string; kind: string }> = {
      jobs: { id: job.body.jobId, kind: 'job' },
      runs: { id: triggered.body.runId, kind: 'run' },
      workflows: { id: workflow.body.workflowId, kind: 'workflow' },
      'workflow-runs': { id: workflowRun.body.workflowRunId, kind: 'workflow run' },
      'flow-control': { id: 'victim-key', kind: 'flow-control key' },
    };
    const filled = (route: (typeof ROUTES)[number]) => {
      const used: Array<{ id: string; kind: string }> = [];
      const path = route.path.replace(/\/([\w-]+)\/\{(\w+)\}/g, (_, collection: string, name: string) => {
        const real = realIds[collection];
        if (!real)
          throw new Error(`${route.method} ${route.path}: no real id of the victim for {${name}} under /${collection}`);
        used.push(real);
        return `/${collection}/${real.id}`;
      });
      expect(path, `${route.method} ${route.path}: every parameter filled`).not.toMatch(/[{}]/);
      return { path, used };
    };
    const bodies: Record<string, unknown> = {
      'update-job': { name: 'taken over', target: { url: target.url('/attacker') } },
      'create-job': { target: { url: target.url('/attacker') }, schedule: later() },
      'preview-schedule': { schedule: later() },
      'create-workflow': { tasks: [{ key: 'attack', target: { url: target.url('/attacker') } }] },
      'update-workflow': { tasks: [{ key: 'attack', target: { url: target.url('/attacker') } }] },
    };
    const checked: string[] = [];
    const withIds: Array<{ route: (typeof ROUTES)[number]; path: string }> = [];
    for (const route of ROUTES.filter((r) => r.authorized)) {
      const { path, used } = filled(route);
      const answer = await attacker.api(route.method, path, bodies[route.handler], { 'if-match': '"1"' });
      if (used.length > 0) {
        // The handler's "not found for this tenant", naming the id it looked up: not the router's
        // 404 for a path it has no route for, nor a lookup of some other (or no) parameter.
        expect(answer.status, `${route.method} ${route.path}`).toBe(404);
        expect(answer.body.error.code).toBe('NOT_FOUND');
        expect(answer.body.error.message, `${route.method} ${route.path}`).not.toMatch(/^No route/);
        expect(used.map((u) => `${u.kind} ${u.id} not found`)).toContain(answer.body.error.message);
        withIds.push({ route, path });
      } else {
        // Routes without ids answer for the caller's own tenant (or refuse, like the admin-only ones).
        expect([200, 201, 202, 403], `${route.method} ${route.path}`).toContain(answer.status);
        expect(JSON.stringify(answer.body)).not.toContain(job.body.jobId);
      }
      checked.push(`${route.method} ${route.path}`);
    }

    expect(checked.length).toBe(ROUTES.filter((r) => r.authorized).length);
    expect(await itemsOf(victim.tenantId)).toBe(before);
    expect(target.callsTo('/attacker')).toHaveLength(0);
    expect(target.callsTo('/victim')).toHaveLength(1);
    expect(target.callsTo('/victim-task')).toHaveLength(1);

    // The premise: each of those ids exists for its owner, on the very same route (the cancel last,
    // as it ends the job the others act on). The owner gets anything but a 404.
    expect(withIds.length).toBeGreaterThan(0);
    const cancelLast = [...withIds].sort(
      (x, y) => Number(x.route.method === 'DELETE') - Number(y.route.method === 'DELETE'),
    );
    for (const { route, path } of cancelLast) {
      const ownBody =
        route.handler === 'update-job' || route.handler === 'update-workflow'
          ? { name: 'renamed by its owner' }
          : undefined;
      const own = await victim.api(route.method, path, ownBody, { 'if-match': '"1"' });
      expect(own.status, `${route.method} ${route.path} as the owner`).not.toBe(404);
      expect(own.status, `${route.method} ${route.path} as the owner`).toBeLessThan(500);
    }
  }, 30_000);
});

describe('quotas', () => {
  it('answers a burst beyond the create bucket with 429 and Retry-After, and creates nothing for it', async () => {
    const tenant = await newTenant('bursty', { createsPerSecond: 1, createBurst: 2 });
    const body = { target: { url: target.url('/bursty') }, schedule: later() };

    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await tenant.api('POST', '/v1/jobs', body));

    expect(answers.map((a) => a.status)).toEqual([201, 201, 429]);
    expect(Number(answers[2]?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(answers[2]?.body.error.code).toBe('RATE_LIMITED');
    expect((await tenant.api('GET', '/v1/jobs')).body.items).toHaveLength(2);
  });

  it('caps active jobs, and frees a place when a job is cancelled', async () => {
    const tenant = await newTenant('small', { maxActiveJobs: 2 });
    const body = { target: { url: target.url('/small') }, schedule: later() };
    const first = await tenant.api('POST', '/v1/jobs', body);
    await tenant.api('POST', '/v1/jobs', body);

    const third = await tenant.api('POST', '/v1/jobs', body);
    await tenant.api('DELETE', `/v1/jobs/${first.body.jobId}`);
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // the counter is recounted at most every 2 s
    const afterCancel = await tenant.api('POST', '/v1/jobs', body);

    expect(third.status).toBe(429);
    expect(third.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: [{ field: 'maxActiveJobs' }] });
    expect(afterCancel.status).toBe(201);
  });

  it('refuses schedules more frequent than the minimum interval and payloads over the limit, naming the field', async () => {
    const tenant = await newTenant('strict', { minIntervalSeconds: 60, maxPayloadBytes: 100 });
    const start = new Date(Date.now() + 3_600_000).toISOString();

    const often = await tenant.api('POST', '/v1/jobs', {
      target: { url: target.url('/strict') },
      schedule: { type: 'interval', everySeconds: 10, startAt: start },
    });
    const cron = await tenant.api('POST', '/v1/jobs', {
      target: { url: target.url('/strict') },
      schedule: { type: 'cron', expression: '*/30 * * * * *' },
    });
    const big = await tenant.api('POST', '/v1/jobs', {
      target: { url: target.url('/strict'), body: 'x'.repeat(200) },
      schedule: later(),
    });

    expect([often.status, cron.status, big.status]).toEqual([400, 400, 400]);
    expect(often.body.error.details.map((d: { field: string }) => d.field)).toEqual(['schedule.everySeconds']);
    expect(cron.body.error.details.map((d: { field: string }) => d.field)).toEqual(['schedule.expression']);
    expect(big.body.error.details.map((d: { field: string }) => d.field)).toEqual(['target.body']);
    expect((await tenant.api('GET', '/v1/jobs')).body.items).toHaveLength(0);
  });
});

describe('secret headers', () => {
  it('sends them to the target, stores them encrypted and shows them as ***', async () => {
    const tenant = await newTenant('secretive');
    const secret = 'Bearer target-secret-7f3a9c';
    const created = await tenant.api('POST', '/v1/jobs', {
      target: {
        url: target.url('/secret'),
        headers: { 'x-plain': 'visible' },
        secretHeaders: { Authorization: secret },
      },
      schedule: { type: 'once' },
    });
    const [call] = await target.waitForCalls('/secret', 1, 10_000);
    const read = await tenant.api('GET', `/v1/jobs/${created.body.jobId}`);
    const listed = await tenant.api('GET', '/v1/jobs');
    const stored = await documents.get({
      TableName: chronos.tables.jobs,
      Key: { tenantId: tenant.tenantId, jobId: created.body.jobId },
    });

    expect(created.status).toBe(201);
    expect(call?.headers.authorization).toBe(secret);
    expect(call?.headers['x-plain']).toBe('visible');
    for (const view of [created.body, read.body, listed.body.items[0]]) {
      expect(view.target.secretHeaders).toEqual({ Authorization: '***' });
      expect(JSON.stringify(view)).not.toContain('target-secret');
    }
    expect(JSON.stringify(stored.Item)).not.toContain('target-secret');
    expect(stored.Item?.target.secretHeaders.names).toEqual(['Authorization']);
  });

  it('refuses a secret header that breaks the header rules, naming it', async () => {
    const tenant = await newTenant('sloppy');
    const answer = await tenant.api('POST', '/v1/jobs', {
      target: { url: target.url('/x'), secretHeaders: { 'Chronos-Signature': 'forged' } },
      schedule: later(),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.details).toEqual([
      { field: 'target.secretHeaders.Chronos-Signature', reason: 'is set by Chronos on every call' },
    ]);
  });
});
