import { describe, expect, it } from 'vitest';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import type { Job } from '#core/model';
import type { HttpRequest, HttpResult } from '#core/ports';
import { sealSecretHeaders } from '#core/secrets/secret-headers';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { completeRun } from '#core/use-cases/complete-run';
import { executeRun, outcomeOf, SLOT_LEAD_MS } from '#core/use-cases/execute-run';
import { newRun } from '#core/use-cases/new-run';
import { FakeClock, RecordingDispatcher, RecordingNotices, ScriptedInvoker } from '../../../support/fakes/fakes.ts';
import { InMemoryJobRepository } from '../../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../../support/fakes/in-memory-runs.ts';
import { InMemoryRunSlots } from '../../../support/fakes/in-memory-tenants.ts';
import { jobFixture } from '../../../support/job-fixture.ts';

const DUE = Date.parse('2026-06-01T12:00:00Z');

const job: Job = jobFixture(DUE, {
  target: { url: 'https://example.com/hook', method: 'POST', headers: { 'x-team': 'a' }, body: '{"a":1}' },
  version: 2,
});

async function setup(
  answer: (r: HttpRequest) => Omit<HttpResult, 'startedAt'> = () => ({
    kind: 'response',
    status: 200,
    bodyExcerpt: 'ok',
    durationMs: 12,
  }),
) {
  const jobs = new InMemoryJobRepository();
  const runs = new InMemoryRunRepository();
  const clock = new FakeClock(DUE - 400);
  const invoker = new ScriptedInvoker(clock, answer);
  await jobs.create(job);
  const run = newRun(job, DUE, 1, DUE - 60_000, 7);
  await runs.createIfAbsent(run);
  const deps = (owner: string) => ({
    jobs,
    runs,
    invoker,
    signingKeys: fixedSigningKeys([newSigningSecret()]),
    clock,
    random: () => 0.5,
    config: { leaseMarginMs: 30_000, owner },
  });
  const message = { tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 1, runId: run.runId };
  return { jobs, runs, clock, invoker, deps, message };
}

describe('executing a run', () => {
  it('waits for the due millisecond, calls the target once and records success', async () => {
    const { deps, message, invoker, runs } = await setup();

    const result = await executeRun(deps('exec-1'), message);

    expect(result.kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
    expect(invoker.requests[0]?.at).toBe(DUE);
    expect(invoker.requests[0]).toMatchObject({
      url: 'https://example.com/hook',
      method: 'POST',
      body: '{"a":1}',
      timeoutMs: 10_000,
      headers: { 'x-team': 'a', 'Idempotency-Key': `J1:${DUE}` },
    });
    expect(await runs.get(message)).toMatchObject({
      status: 'SUCCEEDED',
      httpStatus: 200,
      startedAt: DUE,
      leaseOwner: 'exec-1',
    });
  });

  it('makes no second call for a redelivered message of a finished run', async () => {
    const { deps, message, invoker } = await setup();
    await executeRun(deps('exec-1'), message);

    const again = await executeRun(deps('exec-2'), message);

    expect(again.kind).toBe('already-finished');
    expect(invoker.requests).toHaveLength(1);
  });

  it('hands a message back while another executor holds a live lease', async () => {
    const { deps, message, runs, invoker } = await setup();
    await runs.claim(message, { owner: 'other', expiresAt: DUE + 40_000, now: DUE - 500, takeOverExpired: true });

    const result = await executeRun(deps('exec-2'), message);

    expect(result).toEqual({ kind: 'leased-elsewhere', leaseExpiresAt: DUE + 40_000 });
    expect(invoker.requests).toHaveLength(0);
  });

  it('takes over a run whose lease expired and records the recovery', async () => {
    const { deps, message, runs, clock } = await setup();
    await runs.claim(message, { owner: 'crashed', expiresAt: DUE + 40_000, now: DUE - 500, takeOverExpired: true });
    clock.current = DUE + 41_000;

    const result = await executeRun(deps('exec-2'), message);

    expect(result.kind).toBe('called');
    expect(await runs.get(message)).toMatchObject({ status: 'SUCCEEDED', leaseOwner: 'exec-2', recoveries: 1 });
  });

  it('records a cancelled run and calls nothing when the job was cancelled after enqueue', async () => {
    const { deps, message, jobs, runs, invoker } = await setup();
    (jobs.items.get('t/J1') as Job).status = 'CANCELLED';

    expect((await executeRun(deps('exec-1'), message)).kind).toBe('cancelled');
    expect(invoker.requests).toHaveLength(0);
    expect(await runs.get(message)).toMatchObject({ status: 'CANCELLED', errorType: 'cancelled' });
  });

  it('skips, calling nothing, a run of a one-time job whose `at` is another time (moved, or a retried create’s "now")', async () => {
    const { deps, message, jobs, runs, invoker } = await setup();
    const stored = jobs.items.get('t/J1') as Job;
    stored.schedule = { type: 'once', at: DUE + 60_000 };

    expect(await executeRun(deps('exec-1'), message)).toMatchObject({ kind: 'skipped' });
    expect(invoker.requests).toHaveLength(0);
    expect(await runs.get(message)).toMatchObject({ status: 'SKIPPED', errorType: 'superseded' });
  });

  it('still calls a run triggered by hand at another time than the one-time job’s `at`', async () => {
    const { deps, runs, invoker } = await setup();
    const triggered = { ...newRun({ ...job, triggered: true }, DUE + 1, 1, DUE - 1_000, 7) };
    await runs.createIfAbsent(triggered);
    const { tenantId, jobId, scheduledFor, attempt, runId } = triggered;

    expect((await executeRun(deps('exec-1'), { tenantId, jobId, scheduledFor, attempt, runId })).kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
  });

  it('ignores a message whose run does not exist', async () => {
    const { deps, message, invoker } = await setup();
    expect((await executeRun(deps('e'), { ...message, attempt: 9 })).kind).toBe('missing');
    expect(invoker.requests).toHaveLength(0);
  });
});

describe('run outcomes', () => {
  const timing = { startedAt: 1, durationMs: 5 };

  it('maps 2xx to success, 5xx and 4xx to failures with their type', () => {
    expect(outcomeOf({ kind: 'response', status: 204, bodyExcerpt: '', ...timing }, 9).status).toBe('SUCCEEDED');
    expect(outcomeOf({ kind: 'response', status: 503, bodyExcerpt: 'down', ...timing }, 9)).toMatchObject({
      status: 'FAILED',
      httpStatus: 503,
      errorType: 'http_5xx',
      responseExcerpt: 'down',
    });
    expect(outcomeOf({ kind: 'response', status: 404, bodyExcerpt: '', ...timing }, 9).errorType).toBe('http_4xx');
  });

  it('maps a timeout to TIMED_OUT and a network error to a connection failure', () => {
    expect(outcomeOf({ kind: 'error', errorType: 'timeout', message: 'slow', ...timing }, 9).status).toBe('TIMED_OUT');
    expect(outcomeOf({ kind: 'error', errorType: 'connection', message: 'reset', ...timing }, 9)).toMatchObject({
      status: 'FAILED',
      errorType: 'connection',
      error: 'reset',
    });
  });
});

function completionDeps(jobs: InMemoryJobRepository, runs = new InMemoryRunRepository()) {
  const dispatcher = new RecordingDispatcher();
  const clock = new FakeClock(DUE);
  const invoker = new ScriptedInvoker(clock, () => ({ kind: 'response', status: 200, bodyExcerpt: '', durationMs: 1 }));
  return { jobs, runs, dispatcher, invoker, notices: new RecordingNotices(), config: { retentionDays: 7 } };
}

describe('completing a run', () => {
  it('completes a one-time job when its run succeeds, and only once', async () => {
    const { jobs } = await setup();
    const run = { tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 1, runId: 'r', status: 'SUCCEEDED' as const };

    expect(await completeRun(completionDeps(jobs), run, DUE + 1)).toBe('job-completed');
    expect(await completeRun(completionDeps(jobs), run, DUE + 2)).toBe('unchanged');
    expect((await jobs.get('t', 'J1'))?.status).toBe('COMPLETED');
  });

  it('fails a one-time job when its run fails or times out', async () => {
    const { jobs } = await setup();
    const run = { tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 1, runId: 'r', status: 'TIMED_OUT' as const };

    expect(await completeRun(completionDeps(jobs), run, DUE + 1)).toBe('job-failed');
    expect((await jobs.get('t', 'J1'))?.status).toBe('FAILED');
  });

  it('leaves a cancelled job alone', async () => {
    const { jobs } = await setup();
    (jobs.items.get('t/J1') as Job).status = 'CANCELLED';
    const run = { tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 1, runId: 'r', status: 'CANCELLED' as const };
    expect(await completeRun(completionDeps(jobs), run, DUE + 1)).toBe('unchanged');
    expect((await jobs.get('t', 'J1'))?.status).toBe('CANCELLED');
  });
});

describe('overlap forbidden: one occurrence in flight at a time', () => {
  const forbid = (jobs: InMemoryJobRepository) =>
    Object.assign(jobs.items.get('t/J1') as Job, { policies: { misfire: 'fire_once', overlap: 'forbid' } });

  it('skips an occurrence while an older one is in flight, even behind a skipped one, calling nothing', async () => {
    const { deps, message, jobs, runs, invoker } = await setup();
    forbid(jobs);
    // DUE − 4 s is still running; DUE − 2 s was skipped for it: the latest run alone says nothing.
    await jobs.takeInFlight('t', 'J1', { scheduledFor: DUE - 4_000, runId: 'R-4', until: DUE + 60_000 }, DUE - 4_000);
    await runs.createIfAbsent({ ...newRun(job, DUE - 2_000, 1, DUE - 60_000, 7), status: 'SKIPPED' });

    const result = await executeRun(deps('exec-1'), message);

    expect(result).toEqual({
      kind: 'skipped',
      reason: `overlap forbidden: the occurrence of ${new Date(DUE - 4_000).toISOString()} (run R-4) is still in flight`,
    });
    expect(invoker.requests).toHaveLength(0);
    expect(await runs.get(message)).toMatchObject({ status: 'SKIPPED', errorType: 'overlap' });
    expect(jobs.inFlight.get('t/J1')?.scheduledFor).toBe(DUE - 4_000);
  });

  it('holds the job during the call, until the lease end, and frees it once the outcome is final', async () => {
    let heldDuringCall: unknown;
    const { deps, message, jobs, invoker } = await setup(() => {
      heldDuringCall = structuredClone(jobs.inFlight.get('t/J1'));
      return { kind: 'response', status: 200, bodyExcerpt: 'ok', durationMs: 5 };
    });
    forbid(jobs);

    expect((await executeRun(deps('exec-1'), message)).kind).toBe('called');

    expect(invoker.requests).toHaveLength(1);
    expect(heldDuringCall).toEqual({ scheduledFor: DUE, runId: message.runId, until: DUE + 10_000 + 30_000 });
    expect(jobs.inFlight.has('t/J1')).toBe(false);
  });

  it('keeps the job for a failed attempt until its retry could end; the retry runs, another occurrence does not', async () => {
    const { deps, message, jobs, runs, invoker, clock } = await setup(() => ({
      kind: 'response',
      status: 503,
      bodyExcerpt: 'down',
      durationMs: 5,
    }));
    forbid(jobs);
    const first = await executeRun(deps('exec-1'), message);
    const nextAttemptAt = first.kind === 'called' ? (first.outcome.nextAttemptAt as number) : Number.NaN;
    expect(jobs.inFlight.get('t/J1')).toMatchObject({ scheduledFor: DUE, until: nextAttemptAt + 10_000 + 30_000 });

    // Before the retry exists, the next occurrence is due: it is skipped.
    const next = newRun(job, DUE + 1_000, 1, DUE, 7);
    await runs.createIfAbsent(next);
    clock.current = DUE + 1_000;
    const nextMessage = { ...message, scheduledFor: DUE + 1_000, runId: next.runId };
    expect((await executeRun(deps('exec-2'), nextMessage)).kind).toBe('skipped');

    // The retry, the same occurrence, takes the job again and is called.
    const retry = { ...newRun(job, DUE, 2, DUE, 7), availableAt: nextAttemptAt };
    await runs.createIfAbsent(retry);
    const retried = await executeRun(deps('exec-3'), { ...message, attempt: 2, runId: retry.runId });

    expect(retried.kind).toBe('called');
    expect(invoker.requests.map((r) => r.headers['Chronos-Run-Id'])).toEqual([message.runId, retry.runId]);
  });

  it('takes over the marker of a crashed executor once it has expired', async () => {
    const { deps, message, jobs, invoker } = await setup();
    forbid(jobs);
    await jobs.takeInFlight('t', 'J1', { scheduledFor: DUE - 60_000, runId: 'R-dead', until: DUE - 1 }, DUE - 60_000);

    expect((await executeRun(deps('exec-1'), message)).kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
  });

  it('skips a triggered run while a scheduled occurrence is in flight', async () => {
    const { deps, jobs, runs, invoker } = await setup();
    forbid(jobs);
    await jobs.takeInFlight('t', 'J1', { scheduledFor: DUE - 4_000, runId: 'R-4', until: DUE + 60_000 }, DUE - 4_000);
    const triggered = { ...newRun(job, DUE + 123, 1, DUE, 7), triggered: true };
    await runs.createIfAbsent(triggered);

    const result = await executeRun(deps('exec-1'), {
      tenantId: 't',
      jobId: 'J1',
      scheduledFor: DUE + 123,
      attempt: 1,
      runId: triggered.runId,
    });

    expect(result.kind).toBe('skipped');
    expect(invoker.requests).toHaveLength(0);
  });

  it('leaves the job alone under allow', async () => {
    const { deps, message, jobs, invoker } = await setup();
    await jobs.takeInFlight('t', 'J1', { scheduledFor: DUE - 4_000, runId: 'R-4', until: DUE + 60_000 }, DUE - 4_000);

    expect((await executeRun(deps('exec-1'), message)).kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
    expect(jobs.inFlight.get('t/J1')?.scheduledFor).toBe(DUE - 4_000);
  });
});

describe('completing runs of recurring jobs', () => {
  it('keeps a recurring job active after a failed run while it has occurrences left', async () => {
    const { jobs } = await setup();
    Object.assign(jobs.items.get('t/J1') as Job, {
      schedule: { type: 'interval', everySeconds: 5, startAt: DUE },
      nextFireAt: DUE + 5_000,
    });
    const run = { tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 1, runId: 'r', status: 'FAILED' as const };

    expect(await completeRun(completionDeps(jobs), run, DUE + 1)).toBe('occurrence-failed');
    expect((await jobs.get('t', 'J1'))?.status).toBe('ACTIVE');
  });

  it('completes a recurring job once its schedule is exhausted', async () => {
    const { jobs } = await setup();
    Object.assign(jobs.items.get('t/J1') as Job, {
      schedule: { type: 'interval', everySeconds: 5, startAt: DUE, maxRuns: 1 },
    });
    const run = { tenantId: 't', jobId: 'J1', scheduledFor: DUE, attempt: 1, runId: 'r', status: 'FAILED' as const };

    expect(await completeRun(completionDeps(jobs), run, DUE + 1)).toBe('job-completed');
    expect((await jobs.get('t', 'J1'))?.status).toBe('COMPLETED');
  });
});

describe('per-tenant in-flight cap and secret headers', () => {
  it('does not claim or call a run whose tenant is at its cap, and leaves it QUEUED', async () => {
    const { deps, message, invoker, runs } = await setup();
    const slots = new InMemoryRunSlots();
    await slots.acquire('t', 'someone-else-run', 1, DUE + 60_000, DUE - 400);

    const result = await executeRun({ ...deps('exec-1'), slots: { slots, capOf: () => 1 } }, message);

    expect(result.kind).toBe('throttled');
    expect(invoker.requests).toHaveLength(0);
    expect((await runs.get(message))?.status).toBe('QUEUED');
  });

  it('holds a slot only while it runs, taken just before the due time, with the lease as its expiry', async () => {
    const { deps, message, clock } = await setup();
    const slots = new InMemoryRunSlots();
    const expiries: number[] = [];
    const takenAt: number[] = [];
    const observed = {
      acquire: (...args: Parameters<InMemoryRunSlots['acquire']>) => {
        expiries.push(args[3]);
        takenAt.push(clock.now());
        return slots.acquire(...args);
      },
      release: (tenantId: string, runId: string) => slots.release(tenantId, runId),
    };

    const result = await executeRun({ ...deps('exec-1'), slots: { slots: observed, capOf: () => 1 } }, message);

    expect(result.kind).toBe('called');
    expect(expiries).toEqual([DUE + 10_000 + 30_000]);
    // The message came 400 ms early: the slot is taken SLOT_LEAD_MS before the due time, not on arrival.
    expect(takenAt).toEqual([DUE - SLOT_LEAD_MS]);
    expect(slots.held.get('t')?.size).toBe(0);
    expect(slots.released).toEqual([message.runId]);
  });

  it('reclaims a slot whose holder died once its expiry has passed', async () => {
    const { deps, message } = await setup();
    const slots = new InMemoryRunSlots();
    await slots.acquire('t', 'crashed-run', 1, DUE - 1_000, DUE - 60_000);

    const result = await executeRun({ ...deps('exec-1'), slots: { slots, capOf: () => 1 } }, message);

    expect(result.kind).toBe('called');
  });

  it('takes no slot when the cap is at least what the executor fleet can have in flight, one below it does', async () => {
    const { deps, message, invoker } = await setup();
    const slots = new InMemoryRunSlots();
    // Full for any cap of 1: a slot taken would have been refused.
    await slots.acquire('t', 'someone-else-run', 1, DUE + 60_000, DUE - 400);

    const atBound = await executeRun(
      { ...deps('exec-1'), slots: { slots, capOf: () => 80, fleetMaxCallsInFlight: 80 } },
      message,
    );
    expect(atBound.kind).toBe('called');
    expect(invoker.requests).toHaveLength(1);
    expect(slots.released).toEqual([]);

    const { deps: deps2, message: message2 } = await setup();
    const capped = await executeRun(
      { ...deps2('exec-2'), slots: { slots, capOf: () => 1, fleetMaxCallsInFlight: 2 } },
      message2,
    );
    expect(capped.kind).toBe('throttled');
  });

  it('opens secret headers for the call only', async () => {
    const { deps, message, invoker, jobs } = await setup();
    const cipher = new LocalSecretCipher(LocalSecretCipher.generateKey());
    const sealed = await sealSecretHeaders(cipher, 't', { Authorization: 'Bearer target-secret' });
    const stored = await jobs.get('t', 'J1');
    await jobs.replace({ ...(stored as Job), target: { ...job.target, secretHeaders: sealed } }, stored?.version ?? 0);

    await executeRun({ ...deps('exec-1'), secrets: cipher }, message);

    expect(invoker.requests[0]?.headers).toMatchObject({ 'x-team': 'a', Authorization: 'Bearer target-secret' });
  });
});

describe('the message of a claimed run', () => {
  it('is to come back when the lease ends, told as the claim is made, before the call', async () => {
    const { deps, message, invoker, runs } = await setup();
    const told: Array<{ leaseExpiresAt: number; statusThen?: string; callsSoFar: number }> = [];
    const redelivery = {
      afterLease: (leaseExpiresAt: number) =>
        told.push({
          leaseExpiresAt,
          statusThen: runs.items.values().next().value?.status,
          callsSoFar: invoker.requests.length,
        }),
    };

    expect((await executeRun({ ...deps('exec-1'), redelivery }, message)).kind).toBe('called');

    // Before the claim is written: a crash right after a durable claim still finds the message hidden.
    expect(told).toEqual([{ leaseExpiresAt: DUE + 10_000 + 30_000, statusThen: 'QUEUED', callsSoFar: 0 }]);
  });

  it('of a duplicate that finds another executor holding the run comes back once a lease like its own would have ended', async () => {
    const { deps, message, runs, clock } = await setup();
    const told: number[] = [];
    const redelivery = { afterLease: (at: number) => told.push(at) };
    await runs.claim(message, { owner: 'other', expiresAt: DUE + 40_000, now: DUE - 400, takeOverExpired: true });
    clock.current = DUE + 5_000;

    expect((await executeRun({ ...deps('exec-1'), redelivery }, message)).kind).toBe('leased-elsewhere');
    expect(told).toEqual([DUE + 5_000 + 10_000 + 30_000]);
  });

  it('is not touched for a run its tenant cap defers (no claim)', async () => {
    const { deps, message } = await setup();
    const slots = new InMemoryRunSlots();
    await slots.acquire('t', 'someone-else-run', 1, DUE + 60_000, DUE - 400);
    const told: number[] = [];

    const result = await executeRun(
      { ...deps('exec-1'), slots: { slots, capOf: () => 1 }, redelivery: { afterLease: (at) => told.push(at) } },
      message,
    );

    expect(result.kind).toBe('throttled');
    expect(told).toEqual([]);
  });
});
