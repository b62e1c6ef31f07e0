/**
 * One tenant cannot slow down the others (issue #13 §4), end to end through the local runtime with
 * two tenants created as the admin command creates them:
 *  - tenant A's onFailure endpoint hangs: its notification is made by the notifier, off the
 *    completion stream, so tenant B's retry still runs within its backoff; A's notification is
 *    delivered once the endpoint recovers (same webhook-id on every try), and one whose endpoint
 *    never takes it ends in the notifier's dead-letter queue;
 *  - a target whose name server never answers (a local UDP server that drops queries, the
 *    runtime's TARGET_DNS_SERVERS) ends its run within the job's timeout, while another tenant's
 *    target, named through the same server, is called on time;
 *  - a job created with an `at` an hour in the past shows no hour of start lag, on its run nor in
 *    its tenant's monitoring stats.
 *
 * Timing slack: B's retry backoff is at most 1 s (full jitter of 1 s); the bound allows 4 s more for
 * SQS's whole-second delays and a loaded machine. The old completion handler held B's record
 * behind A's notification for its 10 s timeout.
 */
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { type FakeDnsServer, startFakeDnsServer } from '../support/dns-server.ts';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { type Api, apiAs } from './support/tenant-api.ts';

const BACKOFF_MS = 1_000;
const MARGIN_MS = 4_000;
/** Longer than B's whole retry: A's endpoint hangs through it. */
const NOTIFY_TIMEOUT_SECONDS = 8;
const HOUR_MS = 3_600_000;

let chronos: LocalChronos;
let target: HttpTarget;
let sqs: SQSClient;
let dns: FakeDnsServer;
let aRecovered = false;
const callsOf = new Map<string, number>();

beforeAll(async () => {
  target = await startHttpTarget((path) => {
    const n = (callsOf.get(path) ?? 0) + 1;
    callsOf.set(path, n);
    // Never answers (until it recovers): the notifier's timeout ends each try.
    if (path === '/notify-a') return aRecovered ? { status: 200 } : { status: 200, delayMs: 600_000 };
    if (path === '/notify-never') return { status: 503 };
    if (path.startsWith('/fail')) return { status: 500 };
    if (path === '/flaky-b') return n === 1 ? { status: 500 } : { status: 200 };
    return { status: 200 };
  });
  dns = await startFakeDnsServer({ 'answers.chronos.test': '127.0.0.1' });
  chronos = await startLocalChronos({
    port: 0,
    targetDnsServers: [dns.server],
    scannerIntervalMs: 1_000,
    scanHorizonSeconds: 10,
    notifyTimeoutSeconds: NOTIFY_TIMEOUT_SECONDS,
    notifyBackoffSeconds: 1,
    notifierMaxReceiveCount: 2,
    log: () => undefined,
  });
  sqs = new SQSClient({ endpoint: chronos.endpoints.sqs, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}, 60_000);
afterAll(async () => {
  sqs?.destroy();
  await chronos?.stop();
  await target?.close();
  await dns?.close();
});

async function created(api: Api, body: Record<string, unknown>): Promise<string> {
  const answer = await api('POST', '/v1/jobs', body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.jobId as string;
}

async function runsOf(api: Api, jobId: string) {
  const answer = await api('GET', `/v1/jobs/${jobId}/runs`);
  return answer.body.items as Array<Record<string, unknown>>;
}

describe('one tenant cannot slow down the others', () => {
  it("runs tenant B's retry within its backoff while tenant A's onFailure endpoint hangs, then delivers A's notice", async () => {
    const a = await chronos.tenants.create('hanging-webhook');
    const b = await chronos.tenants.create('bystander');
    const apiA = apiAs(chronos.apiUrl, a.token.token);
    const apiB = apiAs(chronos.apiUrl, b.token.token);
    const dueA = Math.ceil((Date.now() + 3_000) / 1000) * 1000;

    const jobA = await created(apiA, {
      target: { url: target.url('/fail-a') },
      schedule: { type: 'once', at: new Date(dueA).toISOString() },
      retry: { maxAttempts: 1 },
      onFailure: { url: target.url('/notify-a') },
    });
    // B fails just after A: its failure reaches the completion stream while A's notice is pending.
    const jobB = await created(apiB, {
      target: { url: target.url('/flaky-b') },
      schedule: { type: 'once', at: new Date(dueA + 1_000).toISOString() },
      retry: { maxAttempts: 2, initialDelaySeconds: 1 },
    });

    await target.waitForCalls('/notify-a', 1, 20_000); // A's notification is hanging from here
    const [first, retry] = await target.waitForCalls('/flaky-b', 2, 20_000);
    expect(retry?.at).toBeDefined();
    expect((retry?.at as number) - (first?.at as number)).toBeLessThanOrEqual(BACKOFF_MS + MARGIN_MS);
    await eventually(
      () => apiB('GET', `/v1/jobs/${jobB}`),
      (answer) => answer.body.status === 'COMPLETED',
      5_000,
    );
    expect(target.callsTo('/notify-a')).toHaveLength(1); // still the one hanging try
    expect((await apiA('GET', `/v1/jobs/${jobA}`)).body.status).toBe('FAILED');

    // The endpoint recovers: the next try (after the hanging one times out and its backoff) delivers it.
    aRecovered = true;
    const tries = await target.waitForCalls('/notify-a', 2, NOTIFY_TIMEOUT_SECONDS * 1000 + 10_000);
    const ids = tries.map((call) => call.headers['webhook-id']);
    expect(ids).toEqual([`${jobA}:${dueA}:failed`, `${jobA}:${dueA}:failed`]);
    const delivered = tries[1];
    expect(JSON.parse(delivered?.body ?? '{}')).toMatchObject({
      event: 'occurrence.failed',
      jobId: jobA,
      attempts: 1,
      lastRun: { status: 'FAILED', httpStatus: 500, errorType: 'http_5xx' },
    });
    // Signed like every call, verified as the receiver would: the Standard Webhooks package, A's secret.
    expect(() =>
      new Webhook(a.signingSecret.secret).verify(delivered?.body ?? '', delivered?.headers as Record<string, string>),
    ).not.toThrow();
    // Delivered: it is not tried again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(target.callsTo('/notify-a')).toHaveLength(2);
  }, 90_000);

  it('moves a notice its endpoint never takes to the notifier dead-letter queue', async () => {
    const c = await chronos.tenants.create('broken-webhook');
    const apiC = apiAs(chronos.apiUrl, c.token.token);
    const jobC = await created(apiC, {
      target: { url: target.url('/fail-c') },
      schedule: { type: 'once' },
      retry: { maxAttempts: 1 },
      onFailure: { url: target.url('/notify-never') },
    });

    await target.waitForCalls('/notify-never', 2, 20_000);
    const dead = await eventually(
      async () =>
        (
          await sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: chronos.queues.noticeDeadLetter.url,
              MaxNumberOfMessages: 10,
              WaitTimeSeconds: 1,
              VisibilityTimeout: 30,
            }),
          )
        ).Messages ?? [],
      (messages) => messages.length > 0,
      20_000,
    );

    expect(dead.map((message) => JSON.parse(message.Body ?? '{}'))).toEqual([
      expect.objectContaining({ tenantId: c.tenant.tenantId, jobId: jobC, status: 'FAILED', httpStatus: 500 }),
    ]);
    expect(target.callsTo('/notify-never')).toHaveLength(2); // the queue's receive limit
    const left = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: chronos.queues.notices.url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    expect(left.Attributes).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  }, 60_000);

  it("ends a run whose target's name server never answers within the job's timeout, and delays no other tenant", async () => {
    const e = await chronos.tenants.create('silent-dns');
    const f = await chronos.tenants.create('answered-dns');
    const apiE = apiAs(chronos.apiUrl, e.token.token);
    const apiF = apiAs(chronos.apiUrl, f.token.token);
    const port = new URL(target.url('/')).port;
    const due = Math.ceil((Date.now() + 3_000) / 1000) * 1000;
    const at = new Date(due).toISOString();

    const silent = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        created(apiE, {
          target: { url: `http://silent-${i}.chronos.test:${port}/never` },
          schedule: { type: 'once', at },
          timeoutSeconds: 2,
          retry: { maxAttempts: 1 },
        }),
      ),
    );
    const answered = await created(apiF, {
      target: { url: `http://answers.chronos.test:${port}/answered` },
      schedule: { type: 'once', at },
    });

    const [call] = await target.waitForCalls('/answered', 1, 15_000);
    expect((call?.at as number) - due).toBeLessThanOrEqual(5_000); // F's SLA
    for (const jobId of silent) {
      const [run] = await eventually(
        () => runsOf(apiE, jobId),
        (runs) => ['FAILED', 'TIMED_OUT'].includes(runs[0]?.status as string),
        15_000,
      );
      expect(['timeout', 'connection']).toContain(run?.errorType);
      expect(run?.durationMs).toBeLessThanOrEqual(2_000 + 1_000);
    }
    expect(dns.queries).toEqual(expect.arrayContaining(['silent-0.chronos.test', 'answers.chronos.test']));
    expect((await runsOf(apiF, answered))[0]?.status).toBe('SUCCEEDED');
  }, 40_000);

  it('shows no hour of start lag for a job created with an `at` an hour in the past', async () => {
    const d = await chronos.tenants.create('backdated');
    const apiD = apiAs(chronos.apiUrl, d.token.token);
    const at = Date.now() - HOUR_MS;

    const jobId = await created(apiD, {
      target: { url: target.url('/backdated') },
      schedule: { type: 'once', at: new Date(at).toISOString() },
    });
    await target.waitForCalls('/backdated', 1, 15_000);
    const [run] = await eventually(
      () => runsOf(apiD, jobId),
      (runs) => runs[0]?.status === 'SUCCEEDED',
      10_000,
    );

    expect(Date.parse(run?.scheduledFor as string)).toBe(at);
    expect(run?.startLagMs).toBeLessThan(5_000);
    expect(run?.slaMet).toBe(true);
    const { body: stats } = await eventually(
      () => apiD('GET', '/v1/monitoring/stats?window=5m'),
      (answer) => answer.body.runs.total === 1,
      10_000,
    );
    expect(stats.startLagMs.count).toBe(1);
    expect(stats.startLagMs.p99).toBeLessThan(60_000);
  }, 40_000);
});
