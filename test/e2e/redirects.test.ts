/**
 * Redirects end to end, through the local runtime: a job with a secret header, a plain header and
 * a body, whose target redirects it within its origin, then to another origin, then from https to
 * http. What the first origin was given never reaches another one; the downgrade ends the run as
 * `blocked_target` and is never called.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { eventually, type HttpTarget, type RecordedCall, startHttpTarget } from '../support/http-target.ts';
import { trustedLocalCertificate } from '../support/trusted-certificate.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let api: Api;
/** The team's own service (first origin), another service on another port, and an https one. */
let team: HttpTarget;
let elsewhere: HttpTarget;
let secure: HttpTarget;

const SECRET = 'team-api-key-7c2d91';
const BODY = '{"order":42}';

beforeAll(async () => {
  elsewhere = await startHttpTarget();
  team = await startHttpTarget((path) => {
    if (path === '/start') return { status: 307, headers: { location: '/moved' } };
    if (path === '/moved') return { status: 302, headers: { location: elsewhere.url('/landing') } };
    if (path === '/permanent') return { status: 308, headers: { location: elsewhere.url('/kept-out') } };
    return { status: 200 };
  });
  secure = await startHttpTarget(
    (path) => {
      // localhost is another origin than 127.0.0.1, and in the certificate too.
      if (path === '/secure-start')
        return { status: 302, headers: { location: secure.url('/secure-next').replace('127.0.0.1', 'localhost') } };
      if (path === '/secure-next') return { status: 301, headers: { location: elsewhere.url('/downgraded') } };
      return { status: 200 };
    },
    { certificate: trustedLocalCertificate() },
  );
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 1_000, scanHorizonSeconds: 3, log: () => undefined });
  api = apiAs(chronos.apiUrl, chronos.token);
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
  await Promise.all([team?.close(), elsewhere?.close(), secure?.close()]);
});

/**
 * Headers every request carries whatever the job: the connection's own, and Chronos' defaults
 * (`User-Agent`, `Accept`). Anything else came from the job or from Chronos' signing.
 */
const CLIENT_OWN = new Set(['host', 'connection', 'user-agent', 'accept']);
const carried = (call: RecordedCall | undefined) =>
  Object.keys(call?.headers ?? {}).filter((name) => !CLIENT_OWN.has(name));

async function createJob(url: string): Promise<string> {
  const created = await api('POST', '/v1/jobs', {
    target: {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-plain': 'visible' },
      secretHeaders: { 'X-Api-Key': SECRET },
      body: BODY,
    },
    schedule: { type: 'once' },
    retry: { maxAttempts: 1 },
  });
  expect(created.status).toBe(201);
  return created.body.jobId as string;
}

type RunView = { status: string; errorType: string | null; error: string | null; httpStatus?: number | null };
async function finishedRun(jobId: string): Promise<RunView> {
  const runs = await eventually(
    async () => (await api('GET', `/v1/jobs/${jobId}/runs`)).body.items as RunView[],
    (items) => items.length === 1 && ['SUCCEEDED', 'FAILED'].includes(items[0]?.status ?? ''),
    20_000,
  );
  return runs[0] as RunView;
}

describe('a redirect chain across origins and schemes', () => {
  it('keeps everything within the first origin and carries nothing to the next one', async () => {
    const jobId = await createJob(team.url('/start'));
    const run = await finishedRun(jobId);
    const [start] = team.callsTo('/start');
    const [moved] = team.callsTo('/moved');
    const landed = elsewhere.callsTo('/landing');

    expect(run).toMatchObject({ status: 'SUCCEEDED' });
    // Recorded with the run, so a target that answers 401 there is explained.
    expect(run.error).toContain(`redirected to another origin (${new URL(elsewhere.url('/')).origin})`);
    // The first origin got the job's headers, Chronos' own (idempotency, signature) and the body, on both hops.
    expect(start).toMatchObject({ method: 'POST', body: BODY, headers: { 'x-api-key': SECRET, 'x-plain': 'visible' } });
    expect(carried(start)).toEqual(expect.arrayContaining(['x-api-key', 'x-plain', 'content-type', 'idempotency-key']));
    expect(carried(start).length).toBeGreaterThan(5);
    expect(moved).toMatchObject({ method: 'POST', body: BODY, headers: start?.headers });
    // Another origin: a bare GET, none of them.
    expect(landed).toHaveLength(1);
    expect(landed[0]).toMatchObject({ method: 'GET', body: '' });
    expect(carried(landed[0])).toEqual([]);
    expect(JSON.stringify(landed[0])).not.toContain(SECRET);
  });

  it('refuses a 308 that would carry the body to another origin, without calling it', async () => {
    const jobId = await createJob(team.url('/permanent'));
    const run = await finishedRun(jobId);
    expect(run).toMatchObject({ status: 'FAILED', errorType: 'blocked_target' });
    expect(run.error).toMatch(/another origin.*would carry the body there/);
    expect(team.callsTo('/permanent')).toHaveLength(1);
    expect(elsewhere.callsTo('/kept-out')).toHaveLength(0);
  });

  it('follows https to another https origin bare, then refuses the step down to http as blocked_target', async () => {
    const jobId = await createJob(secure.url('/secure-start'));
    const run = await finishedRun(jobId);
    const [start] = secure.callsTo('/secure-start');
    const [next] = secure.callsTo('/secure-next');

    expect(run).toMatchObject({ status: 'FAILED', errorType: 'blocked_target' });
    expect(run.error).toContain(`refused to call ${elsewhere.url('/downgraded')}: is a redirect from https`);
    expect(start).toMatchObject({ method: 'POST', body: BODY, headers: { 'x-api-key': SECRET } });
    expect(next).toMatchObject({ method: 'GET', body: '', headers: { host: expect.stringMatching(/^localhost:/) } });
    expect(carried(next)).toEqual([]);
    expect(elsewhere.callsTo('/downgraded')).toHaveLength(0);
  });
});
