/**
 * Local IAM bites: with one grant taken out of the synthesized policies, the function's end-to-end
 * behaviour fails with AWS's AccessDeniedException naming function, action and resource; with the
 * grant, the same work succeeds. The instances share one set of emulators; each enforces its own
 * policy table while it is the last one started (iam-enforcement.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, type LocalChronosOptions, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { apiAs } from './support/tenant-api.ts';

const ADMIN_TOKEN = 'chronos-e2e-local-iam-operator';
/** Short, so the message the denied executor left comes back soon to the granted one. */
const SHARED = { visibilityTimeoutSeconds: 3, adminToken: ADMIN_TOKEN } satisfies LocalChronosOptions;
const EXECUTOR_ONLY = { api: false, scanner: false, completion: false, deadLetters: false, notifier: false };
const DENIED = (fn: string, action: string, resource: string) =>
  new RegExp(
    `^IAM: User: arn:aws:sts::000000000000:assumed-role/\\w+/${fn} is not authorized to perform: ${action} on resource: ${resource.replaceAll('/', '\\/')} `,
  );

let chronos: LocalChronos;
let target: HttpTarget;

beforeAll(async () => {
  target = await startHttpTarget(() => ({ status: 200, body: 'ok' }));
  chronos = await startLocalChronos({
    ...SHARED,
    port: 0,
    scannerIntervalMs: 3_600_000,
    components: { executor: false },
    log: () => undefined,
  });
});
afterAll(async () => {
  await chronos?.stop();
  await target?.close();
});

/** A local Chronos on the same emulators running only `components`, whose log lines are kept. */
async function alongside(options: LocalChronosOptions): Promise<{ instance: LocalChronos; lines: string[] }> {
  const lines: string[] = [];
  const instance = await startLocalChronos({
    ...SHARED,
    endpoints: chronos.endpoints,
    ...options,
    log: (message) => lines.push(message),
  });
  return { instance, lines };
}

describe('local IAM, from the synthesized template', () => {
  it('fails the executor with AccessDenied when its dynamodb:UpdateItem grant is removed, and runs the job with it', async () => {
    // The executor's first write is taking a run slot of the tenant, before it claims the run.
    const tenantsTable = `arn:aws:dynamodb:us-east-1:000000000000:table/${chronos.tables.tenants}`;
    const denied = await alongside({
      components: EXECUTOR_ONLY,
      iam: { revoke: [{ functionName: 'executor', action: 'dynamodb:UpdateItem' }] },
    });
    const api = apiAs(chronos.apiUrl, chronos.token);
    let jobId: string;
    try {
      const created = await api('POST', '/v1/jobs', {
        name: 'needs-the-grant',
        target: { url: target.url('/granted'), method: 'POST' },
        schedule: { type: 'once' },
      });
      expect(created.status).toBe(201);
      jobId = created.body.jobId;
      const line = await eventually(
        async () => denied.lines.find((l) => l.startsWith('IAM: ')),
        (found) => found !== undefined,
        10_000,
      );
      expect(line).toMatch(DENIED('executor', 'dynamodb:UpdateItem', tenantsTable));
      // The run was never claimed, so the target was never called.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(target.callsTo('/granted')).toEqual([]);
    } finally {
      await denied.instance.stop();
    }

    const granted = await alongside({ components: EXECUTOR_ONLY });
    try {
      await target.waitForCalls('/granted', 1, 20_000);
      const job = await eventually(
        () => api('GET', `/v1/jobs/${jobId}`),
        (answer) => answer.body?.status === 'COMPLETED',
        10_000,
      );
      expect(job.body.status).toBe('COMPLETED');
      expect(granted.lines.filter((l) => l.startsWith('IAM: '))).toEqual([]);
    } finally {
      await granted.instance.stop();
    }
  });

  it("answers the admin all-tenant stats with 500 when the stats function's Scan grant is removed, and 200 with it", async () => {
    const tenantsTable = `arn:aws:dynamodb:us-east-1:000000000000:table/${chronos.tables.tenants}`;
    const denied = await alongside({
      port: 0,
      components: { executor: false, scanner: false, completion: false, deadLetters: false, notifier: false },
      iam: { revoke: [{ functionName: 'api-monitoring-stats', action: 'dynamodb:Scan' }] },
    });
    try {
      const answer = await apiAs(denied.instance.apiUrl, ADMIN_TOKEN)('GET', '/v1/monitoring/stats');
      expect(answer.status).toBe(500);
      expect(denied.lines.filter((l) => l.startsWith('IAM: '))).toEqual([
        expect.stringMatching(DENIED('api-monitoring-stats', 'dynamodb:Scan', tenantsTable)),
      ]);
    } finally {
      await denied.instance.stop();
    }
    const granted = await apiAs(chronos.apiUrl, ADMIN_TOKEN)('GET', '/v1/monitoring/stats');
    expect(granted.status).toBe(200);
    expect(granted.body.scope).toBe('*');
  });
});
