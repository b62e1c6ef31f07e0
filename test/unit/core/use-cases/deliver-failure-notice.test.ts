import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import type { Job } from '#core/model';
import { failureNoticeOf, MAX_NOTICE_ERROR_CHARS } from '#core/notifications/failure-notice';
import type { HttpRequest, HttpResult } from '#core/ports';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { deliverFailureNotice, NotificationFailedError } from '#core/use-cases/deliver-failure-notice';
import { FakeClock, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T12:00:00Z');
const SECRET = newSigningSecret();
const job: Job = jobFixture(DUE, { onFailureUrl: 'https://example.com/failed' });
const failedRun = {
  tenantId: job.tenantId,
  jobId: job.jobId,
  scheduledFor: DUE,
  attempt: 3,
  runId: `${job.jobId}_${DUE}_3`,
  status: 'FAILED' as const,
  errorType: 'http_5xx' as const,
  httpStatus: 503,
  error: 'x'.repeat(10_000),
};

async function world(answer: () => Omit<HttpResult, 'startedAt'>, stored: Job | null = job) {
  const jobs = new InMemoryJobRepository();
  if (stored) await jobs.create(stored);
  const clock = new FakeClock(DUE + 5_000);
  const invoker = new ScriptedInvoker(clock, answer);
  const deps = {
    jobs,
    invoker,
    signingKeys: fixedSigningKeys([SECRET]),
    clock,
    config: { timeoutMs: 10_000 },
  };
  return { deps, invoker, clock };
}

const ok = () => ({ kind: 'response' as const, status: 204, bodyExcerpt: '', durationMs: 1 });

describe('failure notices', () => {
  it('carry an excerpt of the error, never the whole of it', () => {
    const notice = failureNoticeOf(failedRun);

    expect(notice.error).toHaveLength(MAX_NOTICE_ERROR_CHARS);
    expect(notice).toMatchObject({ jobId: job.jobId, attempt: 3, httpStatus: 503, errorType: 'http_5xx' });
  });

  it("posts the summary to the job's onFailure URL, signed, with a webhook-id stable across deliveries", async () => {
    const { deps, invoker, clock } = await world(ok);
    const notice = failureNoticeOf(failedRun);

    expect(await deliverFailureNotice(deps, notice)).toEqual({ kind: 'delivered', httpStatus: 204 });
    clock.current += 60_000;
    await deliverFailureNotice(deps, notice);

    const [first, again] = invoker.requests as Array<HttpRequest & { at: number }>;
    expect(first).toMatchObject({ url: 'https://example.com/failed', method: 'POST', timeoutMs: 10_000 });
    expect(JSON.parse(first?.body ?? '{}')).toMatchObject({
      event: 'occurrence.failed',
      jobId: job.jobId,
      occurrence: new Date(DUE).toISOString(),
      attempts: 3,
      lastRun: { runId: failedRun.runId, status: 'FAILED', httpStatus: 503, errorType: 'http_5xx' },
    });
    const id = `${job.jobId}:${DUE}:failed`;
    expect(first?.headers).toMatchObject({ 'webhook-id': id, 'Idempotency-Key': id });
    expect(again?.headers['webhook-id']).toBe(id);
    // Verified as a receiver would, with the Standard Webhooks package (at the time it was sent).
    vi.useFakeTimers({ now: DUE + 5_000, toFake: ['Date'] });
    try {
      expect(() =>
        new Webhook(SECRET).verify(first?.body as string, first?.headers as Record<string, string>),
      ).not.toThrow();
      expect(() =>
        new Webhook(newSigningSecret()).verify(first?.body as string, first?.headers as Record<string, string>),
      ).toThrow();
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails a delivery the endpoint did not take, so the notice comes back', async () => {
    const refused = await world(() => ({ kind: 'response', status: 500, bodyExcerpt: '', durationMs: 1 }));
    const hung = await world(() => ({ kind: 'error', errorType: 'timeout', message: 'no answer', durationMs: 10_000 }));

    await expect(deliverFailureNotice(refused.deps, failureNoticeOf(failedRun))).rejects.toThrow(
      NotificationFailedError,
    );
    await expect(deliverFailureNotice(hung.deps, failureNoticeOf(failedRun))).rejects.toThrow(/timeout/);
  });

  it('drops the notice of a job that is gone or no longer has an onFailure URL', async () => {
    const gone = await world(ok, null);
    const { onFailureUrl: _removed, ...withoutUrl } = job;
    const unset = await world(ok, withoutUrl);

    expect(await deliverFailureNotice(gone.deps, failureNoticeOf(failedRun))).toMatchObject({ kind: 'dropped' });
    expect(await deliverFailureNotice(unset.deps, failureNoticeOf(failedRun))).toMatchObject({ kind: 'dropped' });
    expect(gone.invoker.requests).toHaveLength(0);
    expect(unset.invoker.requests).toHaveLength(0);
  });
});
