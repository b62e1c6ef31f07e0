/**
 * One test per rule of the async run decisions: what each event writes (and on which condition),
 * and what it answers.
 */
import { describe, expect, it } from 'vitest';
import { decideAccepted } from '#core/async/accept-decision';
import { applyAsyncWrite } from '#core/async/apply-write';
import { asyncNextAttemptAt, isAsyncEndRetryable } from '#core/async/async-retry';
import { decideCancel } from '#core/async/cancel-decision';
import { type Completion, parseCompletion } from '#core/async/completion-body';
import { decideCompletion } from '#core/async/completion-decision';
import { decideDeadlines, passedDeadline } from '#core/async/deadline-decision';
import { DEADLINE_INDEX, deadlineAtOf, deadlineIndexEntry } from '#core/async/deadline-index';
import { decideHeartbeat } from '#core/async/heartbeat-decision';
import { dueShardOf } from '#core/due-shard';
import { DEFAULT_RETRY_POLICY } from '#core/retry-policy';
import { acceptedRun, at, claimedRun, claimsOf, EXECUTOR, SECOND, SHARDS, T0 } from './fixtures.ts';

const completion = (body: unknown): Completion => {
  const parsed = parseCompletion(body);
  if (!parsed.ok) throw new Error('fixture must parse');
  return parsed.completion;
};
const SUCCEEDED = completion({ status: 'succeeded', output: { rows: 3 } });
const FAILED = completion({ status: 'failed', error: 'disk full' });
const SHARD = dueShardOf(claimedRun().jobId, SHARDS);

describe('the executor’s 202', () => {
  it('makes the run RUNNING with a heartbeat deadline and a max-duration deadline from the call, in the deadline index', () => {
    const now = T0 + 2 * SECOND;
    const decision = decideAccepted(claimedRun(), EXECUTOR, at(now));
    expect(decision.answer).toEqual({ kind: 'accepted', heartbeatDeadline: now + 60 * SECOND });
    expect(decision.write).toEqual({
      condition: { status: 'RUNNING', revision: 0, leaseOwner: EXECUTOR },
      set: {
        asyncRevision: 1,
        status: 'RUNNING',
        acceptedAt: now,
        heartbeatDeadline: now + 60 * SECOND,
        maxDurationDeadline: T0 + 3600 * SECOND,
        leaseExpiresAt: T0 + 3600 * SECOND,
        deadlineShard: SHARD,
        deadlineAt: now + 60 * SECOND,
      },
      remove: [],
    });
  });

  it('records nothing once a completion ended the run, a heartbeat accepted it, or the claim moved on', () => {
    const now = T0 + 2 * SECOND;
    expect(decideAccepted(claimedRun({ status: 'SUCCEEDED' }), EXECUTOR, at(now)).write).toBeUndefined();
    expect(decideAccepted(acceptedRun(), EXECUTOR, at(now)).write).toBeUndefined();
    expect(decideAccepted(claimedRun({ leaseOwner: 'executor-2' }), EXECUTOR, at(now)).write).toBeUndefined();
    expect(decideAccepted(claimedRun({ status: 'QUEUED' }), EXECUTOR, at(now)).answer.kind).toBe('ignored');
  });

  it('ends the run TIMED_OUT when the call itself outlasted maxDurationSeconds', () => {
    const run = claimedRun({ settings: { heartbeatTimeoutSeconds: 5, maxDurationSeconds: 5, cancelGraceSeconds: 0 } });
    const decision = decideAccepted(run, EXECUTOR, at(T0 + 6 * SECOND));
    expect(decision.answer).toEqual({ kind: 'expired', end: { status: 'TIMED_OUT', errorType: 'timeout' } });
    expect(decision.write?.set).toMatchObject({
      status: 'TIMED_OUT',
      errorType: 'timeout',
      completedAt: T0 + 6 * SECOND,
    });
  });

  it('clamps the first heartbeat deadline to the max duration', () => {
    const run = claimedRun({
      settings: { heartbeatTimeoutSeconds: 60, maxDurationSeconds: 60, cancelGraceSeconds: 0 },
    });
    const decision = decideAccepted(run, EXECUTOR, at(T0 + 30 * SECOND));
    expect(decision.answer).toEqual({ kind: 'accepted', heartbeatDeadline: T0 + 60 * SECOND });
  });
});

describe('a heartbeat', () => {
  it('extends the deadline by the timeout, records progress, message and checkpoint, and answers the cancel flag', () => {
    const now = T0 + 50 * SECOND;
    const run = acceptedRun();
    const decision = decideHeartbeat(
      run,
      claimsOf(run),
      { progress: 40, message: 'copying', checkpointJson: '{"offset":4}' },
      at(now),
    );
    expect(decision.answer).toEqual({
      kind: 'heartbeat',
      cancelRequested: false,
      heartbeatDeadline: now + 60 * SECOND,
    });
    expect(decision.write).toEqual({
      condition: { status: 'RUNNING', revision: 1 },
      set: {
        asyncRevision: 2,
        status: 'RUNNING',
        heartbeatAt: now,
        heartbeatDeadline: now + 60 * SECOND,
        progress: 40,
        progressMessage: 'copying',
        checkpointJson: '{"offset":4}',
        checkpointAt: now,
        deadlineShard: SHARD,
        deadlineAt: now + 60 * SECOND,
      },
      remove: [],
    });
  });

  it('never extends past the max-duration deadline', () => {
    const run = acceptedRun({ heartbeatDeadline: T0 + 3590 * SECOND });
    const decision = decideHeartbeat(run, claimsOf(run), {}, at(T0 + 3580 * SECOND));
    expect(decision.answer).toMatchObject({ heartbeatDeadline: T0 + 3600 * SECOND });
  });

  it('answers cancelRequested once a cancel was asked for', () => {
    const run = acceptedRun({ cancelRequestedAt: T0 + 10 * SECOND });
    expect(decideHeartbeat(run, claimsOf(run), {}, at(T0 + 20 * SECOND)).answer).toMatchObject({
      kind: 'heartbeat',
      cancelRequested: true,
    });
  });

  it('at the deadline itself is in time; after it, ends the run TIMED_OUT and answers RUN_ENDED', () => {
    const run = acceptedRun();
    expect(decideHeartbeat(run, claimsOf(run), {}, at(T0 + 61 * SECOND)).answer.kind).toBe('heartbeat');
    const late = decideHeartbeat(run, claimsOf(run), {}, at(T0 + 61 * SECOND + 1));
    expect(late.answer).toEqual({ kind: 'refused', code: 'RUN_ENDED' });
    expect(late.write?.set).toMatchObject({ status: 'TIMED_OUT', errorType: 'heartbeat_timeout' });
    expect(late.write?.remove).toEqual(['deadlineShard', 'deadlineAt']);
  });

  it('from an older attempt, or for an ended run, answers RUN_ENDED and writes nothing', () => {
    const run = acceptedRun({ attempt: 2 });
    expect(decideHeartbeat(run, { ...claimsOf(run), attempt: 1 }, {}, at(T0 + 2 * SECOND))).toEqual({
      answer: { kind: 'refused', code: 'RUN_ENDED' },
    });
    const ended = acceptedRun({ status: 'TIMED_OUT' });
    expect(decideHeartbeat(ended, claimsOf(ended), {}, at(T0 + 2 * SECOND))).toEqual({
      answer: { kind: 'refused', code: 'RUN_ENDED' },
    });
  });

  it('for no run, or another tenant’s, answers RUN_NOT_FOUND', () => {
    const run = acceptedRun();
    expect(decideHeartbeat(undefined, claimsOf(run), {}, at(T0)).answer).toEqual({
      kind: 'refused',
      code: 'RUN_NOT_FOUND',
    });
    expect(decideHeartbeat(run, { ...claimsOf(run), tenantId: 'other' }, {}, at(T0)).answer).toEqual({
      kind: 'refused',
      code: 'RUN_NOT_FOUND',
    });
  });

  it('before the 202 was recorded, accepts the run itself; on a QUEUED run, answers RUN_NOT_STARTED', () => {
    const run = claimedRun();
    const now = T0 + 3 * SECOND;
    const decision = decideHeartbeat(run, claimsOf(run), { progress: 1 }, at(now));
    expect(decision.write?.set).toMatchObject({
      acceptedAt: now,
      heartbeatDeadline: now + 60 * SECOND,
      maxDurationDeadline: T0 + 3600 * SECOND,
      deadlineAt: now + 60 * SECOND,
    });
    const accepted = decision.write && applyAsyncWrite(run, decision.write);
    expect(accepted && decideAccepted(accepted, EXECUTOR, at(now + 1)).write).toBeUndefined();
    const queued = claimedRun({ status: 'QUEUED' });
    expect(decideHeartbeat(queued, claimsOf(queued), {}, at(now))).toEqual({
      answer: { kind: 'refused', code: 'RUN_NOT_STARTED' },
    });
  });
});

describe('a completion', () => {
  it('ends the run SUCCEEDED with its output, out of the deadline index', () => {
    const run = acceptedRun();
    const now = T0 + 30 * SECOND;
    const decision = decideCompletion(run, claimsOf(run), SUCCEEDED, at(now));
    expect(decision.answer).toEqual({ kind: 'completed', replay: false, status: 'SUCCEEDED' });
    expect(decision.write).toEqual({
      condition: { status: 'RUNNING', revision: 1 },
      set: {
        asyncRevision: 2,
        status: 'SUCCEEDED',
        completedAt: now,
        durationMs: 30 * SECOND,
        outputJson: '{"rows":3}',
        completionDigest: SUCCEEDED.digest,
      },
      remove: ['deadlineShard', 'deadlineAt'],
    });
  });

  it('ends the run FAILED with the worker’s error and retryable flag', () => {
    const run = acceptedRun();
    const decision = decideCompletion(run, claimsOf(run), FAILED, at(T0 + 30 * SECOND));
    expect(decision.write?.set).toMatchObject({
      status: 'FAILED',
      errorType: 'worker_failed',
      error: 'disk full',
      retryable: true,
    });
  });

  it('is idempotent: the same completion again answers the first result; another answers RUN_ENDED', () => {
    const run = acceptedRun();
    const first = decideCompletion(run, claimsOf(run), SUCCEEDED, at(T0 + 30 * SECOND));
    const ended = first.write && applyAsyncWrite(run, first.write);
    if (!ended) throw new Error('the first completion must apply');
    expect(decideCompletion(ended, claimsOf(run), SUCCEEDED, at(T0 + 40 * SECOND))).toEqual({
      answer: { kind: 'completed', replay: true, status: 'SUCCEEDED' },
    });
    expect(decideCompletion(ended, claimsOf(run), FAILED, at(T0 + 40 * SECOND))).toEqual({
      answer: { kind: 'refused', code: 'RUN_ENDED' },
    });
  });

  it('after a timeout or from an older attempt answers RUN_ENDED', () => {
    const timedOut = acceptedRun({ status: 'TIMED_OUT' });
    expect(decideCompletion(timedOut, claimsOf(timedOut), SUCCEEDED, at(T0)).answer).toEqual({
      kind: 'refused',
      code: 'RUN_ENDED',
    });
    const retry = acceptedRun({ attempt: 2 });
    expect(decideCompletion(retry, { ...claimsOf(retry), attempt: 1 }, SUCCEEDED, at(T0))).toEqual({
      answer: { kind: 'refused', code: 'RUN_ENDED' },
    });
  });

  it('past a deadline the scanner has not recorded yet, records it and answers RUN_ENDED', () => {
    const run = acceptedRun();
    const decision = decideCompletion(run, claimsOf(run), SUCCEEDED, at(T0 + 62 * SECOND));
    expect(decision.answer).toEqual({ kind: 'refused', code: 'RUN_ENDED' });
    expect(decision.write?.set).toMatchObject({ status: 'TIMED_OUT', errorType: 'heartbeat_timeout' });
  });

  it('racing the 202 (run still claimed, or QUEUED) is accepted, and the late 202 records nothing', () => {
    const run = claimedRun();
    const decision = decideCompletion(run, claimsOf(run), SUCCEEDED, at(T0 + SECOND));
    expect(decision.write?.condition).toEqual({ status: 'RUNNING', revision: 0 });
    const ended = decision.write && applyAsyncWrite(run, decision.write);
    expect(ended?.status).toBe('SUCCEEDED');
    expect(ended && decideAccepted(ended, EXECUTOR, at(T0 + 2 * SECOND)).write).toBeUndefined();
    const queued = claimedRun({ status: 'QUEUED' });
    expect(decideCompletion(queued, claimsOf(queued), SUCCEEDED, at(T0)).write?.condition.status).toBe('QUEUED');
  });

  it('after a cancel request, a failure ends the run CANCELLED and a success SUCCEEDED', () => {
    const run = acceptedRun({ cancelRequestedAt: T0 + 10 * SECOND });
    const failed = decideCompletion(
      run,
      claimsOf(run),
      completion({ status: 'failed', error: 'cancelled' }),
      at(T0 + 20 * SECOND),
    );
    expect(failed.write?.set).toMatchObject({ status: 'CANCELLED', errorType: 'cancelled', error: 'cancelled' });
    expect(decideCompletion(run, claimsOf(run), SUCCEEDED, at(T0 + 20 * SECOND)).write?.set.status).toBe('SUCCEEDED');
  });
});

describe('the deadline index entry, kept lazily', () => {
  it('a heartbeat leaves an entry that is already earlier than the new deadline where it is: the index is not written', () => {
    const run = acceptedRun({ deadlineAt: T0 + 61 * SECOND });
    const decision = decideHeartbeat(run, claimsOf(run), { progress: 5 }, at(T0 + 30 * SECOND));
    expect(decision.write?.set).toMatchObject({ heartbeatDeadline: T0 + 90 * SECOND });
    expect(decision.write?.set).not.toHaveProperty('deadlineAt');
    expect(decision.write?.set).not.toHaveProperty('deadlineShard');
    expect(decision.write?.remove).toEqual([]);
  });

  it('a cancel whose grace ends before the entry moves the entry earlier', () => {
    const run = acceptedRun({ deadlineAt: T0 + 61 * SECOND, heartbeatDeadline: T0 + 200 * SECOND });
    const decision = decideCancel(run, at(T0 + 10 * SECOND));
    expect(decision.write?.set).toMatchObject({ deadlineShard: SHARD, deadlineAt: T0 + 40 * SECOND });
  });

  it('the deadline pass moves an early entry of a live run to its earliest deadline, and leaves a right one alone', () => {
    const run = acceptedRun({ deadlineAt: T0 + 61 * SECOND, heartbeatDeadline: T0 + 120 * SECOND });
    const decision = decideDeadlines(run, at(T0 + 62 * SECOND));
    expect(decision.answer).toEqual({ kind: 'alive', deadlineAt: T0 + 120 * SECOND });
    expect(decision.write).toEqual({
      condition: { status: 'RUNNING', revision: 1 },
      set: { asyncRevision: 2, deadlineShard: SHARD, deadlineAt: T0 + 120 * SECOND },
      remove: [],
    });
    const moved = applyAsyncWrite(run, decision.write as NonNullable<typeof decision.write>);
    expect(decideDeadlines({ ...(moved as typeof run) }, at(T0 + 63 * SECOND)).write).toBeUndefined();
  });
});

describe('a soft cancel', () => {
  it('records the request on a RUNNING run, with the grace end in its deadline index entry', () => {
    const run = acceptedRun();
    const now = T0 + 10 * SECOND;
    const decision = decideCancel(run, at(now));
    expect(decision.answer).toEqual({ kind: 'cancel-requested', alreadyRequested: false });
    expect(decision.write?.set).toMatchObject({ cancelRequestedAt: now, deadlineAt: now + 30 * SECOND });
  });

  it('asked again changes nothing; on an ended run answers RUN_ENDED', () => {
    expect(decideCancel(acceptedRun({ cancelRequestedAt: T0 }), at(T0 + SECOND))).toEqual({
      answer: { kind: 'cancel-requested', alreadyRequested: true },
    });
    expect(decideCancel(acceptedRun({ status: 'SUCCEEDED' }), at(T0))).toEqual({
      answer: { kind: 'refused', code: 'RUN_ENDED' },
    });
  });

  it('ends a QUEUED run CANCELLED at once', () => {
    const decision = decideCancel(claimedRun({ status: 'QUEUED' }), at(T0));
    expect(decision.answer).toEqual({ kind: 'cancelled' });
    expect(decision.write?.set).toMatchObject({ status: 'CANCELLED', errorType: 'cancelled' });
    expect(decision.write?.condition.status).toBe('QUEUED');
  });
});

describe('the deadline pass', () => {
  it('ends a run whose heartbeat is missed TIMED_OUT heartbeat_timeout', () => {
    const decision = decideDeadlines(acceptedRun(), at(T0 + 62 * SECOND));
    expect(decision.answer).toEqual({ kind: 'expired', end: { status: 'TIMED_OUT', errorType: 'heartbeat_timeout' } });
    expect(decision.write?.set).toMatchObject({
      status: 'TIMED_OUT',
      errorType: 'heartbeat_timeout',
      error: 'no heartbeat within heartbeatTimeoutSeconds (60 s)',
    });
  });

  it('ends a run past its max duration TIMED_OUT timeout, also when its heartbeat deadline equals it', () => {
    const run = acceptedRun({ heartbeatDeadline: T0 + 3600 * SECOND });
    expect(decideDeadlines(run, at(T0 + 3601 * SECOND)).answer).toEqual({
      kind: 'expired',
      end: { status: 'TIMED_OUT', errorType: 'timeout' },
    });
  });

  it('ends a cancelled run CANCELLED once the grace is over, not before', () => {
    const run = acceptedRun({ cancelRequestedAt: T0 + 10 * SECOND, heartbeatDeadline: T0 + 100 * SECOND });
    expect(decideDeadlines(run, at(T0 + 40 * SECOND)).answer).toEqual({ kind: 'alive', deadlineAt: T0 + 40 * SECOND });
    expect(decideDeadlines(run, at(T0 + 41 * SECOND)).answer).toEqual({
      kind: 'expired',
      end: { status: 'CANCELLED', errorType: 'cancelled' },
    });
  });

  it('gives the earliest passed deadline: a heartbeat missed before the cancel grace ended', () => {
    const run = acceptedRun({ cancelRequestedAt: T0 + 50 * SECOND });
    expect(passedDeadline(run, T0 + 200 * SECOND)).toEqual({ status: 'TIMED_OUT', errorType: 'heartbeat_timeout' });
  });

  it('leaves a live run, and a run not accepted yet, alone', () => {
    expect(decideDeadlines(acceptedRun(), at(T0 + 30 * SECOND))).toEqual({
      answer: { kind: 'alive', deadlineAt: T0 + 61 * SECOND },
    });
    expect(decideDeadlines(claimedRun(), at(T0 + 9999 * SECOND))).toEqual({ answer: { kind: 'alive' } });
    expect(decideDeadlines(acceptedRun({ status: 'FAILED' }), at(T0 + 9999 * SECOND)).write).toBeUndefined();
  });
});

describe('the deadline index', () => {
  it('is keyed by the due-index shard of the job and the earliest deadline', () => {
    const run = acceptedRun({ cancelRequestedAt: T0 + 5 * SECOND });
    expect(deadlineIndexEntry(run, SHARDS)).toEqual({ deadlineShard: SHARD, deadlineAt: T0 + 35 * SECOND });
    expect(deadlineAtOf(acceptedRun())).toBe(T0 + 61 * SECOND);
    expect(deadlineIndexEntry(claimedRun(), SHARDS)).toBeUndefined();
    expect(DEADLINE_INDEX).toEqual({ name: 'deadline-index', partitionKey: 'deadlineShard', sortKey: 'deadlineAt' });
  });
});

describe('retrying an async end', () => {
  const job = { retry: DEFAULT_RETRY_POLICY, delivery: 'at-least-once' as const };

  it('retries timeouts and retryable failures, never cancels, successes or at-most-once jobs', () => {
    expect(isAsyncEndRetryable({ status: 'TIMED_OUT', errorType: 'heartbeat_timeout' })).toBe(true);
    expect(isAsyncEndRetryable({ status: 'FAILED', errorType: 'worker_failed', retryable: false })).toBe(false);
    const end = { status: 'FAILED', errorType: 'worker_failed', retryable: true } as const;
    expect(asyncNextAttemptAt(end, job, 1, T0, 0.5)).toBe(T0 + 500);
    expect(asyncNextAttemptAt(end, job, 3, T0, 0.5)).toBeUndefined();
    expect(asyncNextAttemptAt(end, { ...job, delivery: 'at-most-once' }, 1, T0, 0.5)).toBeUndefined();
    expect(asyncNextAttemptAt({ status: 'CANCELLED', errorType: 'cancelled' }, job, 1, T0, 0.5)).toBeUndefined();
    expect(asyncNextAttemptAt({ status: 'SUCCEEDED' }, job, 1, T0, 0.5)).toBeUndefined();
  });
});
