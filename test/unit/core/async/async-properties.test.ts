/**
 * Properties of the async run decisions over random histories: heartbeats, completions, 202s,
 * cancels and deadline passes from several attempts of one occurrence, some decided on a stale
 * read (as two racing Lambdas would), each write applied as the conditional write the adapters
 * make (apply-write.ts). Whatever the order: a heartbeat deadline never passes the max-duration
 * deadline nor moves back, an ended run never changes again, an older attempt never writes, and
 * the occurrence has at most one run in flight and at most one success.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideAccepted } from '#core/async/accept-decision';
import { type AsyncRunRecord, applyAsyncWrite } from '#core/async/apply-write';
import type { AsyncDecision, AsyncEnd } from '#core/async/async-run';
import { decideCancel } from '#core/async/cancel-decision';
import { parseCompletion } from '#core/async/completion-body';
import { decideCompletion } from '#core/async/completion-decision';
import { decideDeadlines } from '#core/async/deadline-decision';
import { deadlineAtOf } from '#core/async/deadline-index';
import { decideHeartbeat, extendedHeartbeatDeadline } from '#core/async/heartbeat-decision';
import { isTerminal } from '#core/run-state';
import { acceptedRun, at, claimedRun, claimsOf, SECOND, T0 } from './fixtures.ts';

const MAX_ATTEMPTS = 3;
const EVENT_KINDS = ['claim', 'accept', 'heartbeat', 'succeed', 'fail', 'fail-final', 'deadline', 'cancel'] as const;

const completionOf = (body: unknown) => {
  const parsed = parseCompletion(body);
  if (!parsed.ok) throw new Error('fixture must parse');
  return parsed.completion;
};
const COMPLETIONS = {
  succeed: completionOf({ status: 'succeeded', output: { ok: true } }),
  fail: completionOf({ status: 'failed', error: 'transient' }),
  'fail-final': completionOf({ status: 'failed', error: 'broken', retryable: false }),
};

const settingsArb = fc
  .record({
    heartbeatTimeoutSeconds: fc.integer({ min: 5, max: 3600 }),
    maxDurationSeconds: fc.integer({ min: 5, max: 604_800 }),
    cancelGraceSeconds: fc.integer({ min: 0, max: 3600 }),
  })
  .filter((s) => s.maxDurationSeconds >= s.heartbeatTimeoutSeconds);

/** Weighted so histories get far: most runs are claimed, accepted and heartbeated before they end. */
const kindArb = fc.oneof(
  ...EVENT_KINDS.map((kind) => ({
    arbitrary: fc.constant(kind),
    weight: { claim: 4, accept: 4, heartbeat: 6, deadline: 2, cancel: 1, succeed: 1, fail: 2, 'fail-final': 1 }[kind],
  })),
);

/** Settings on the scale of the events' spacing, so deadlines pass within a history. */
const shortSettingsArb = fc
  .record({
    heartbeatTimeoutSeconds: fc.integer({ min: 5, max: 120 }),
    maxDurationSeconds: fc.integer({ min: 5, max: 600 }),
    cancelGraceSeconds: fc.integer({ min: 0, max: 60 }),
  })
  .filter((s) => s.maxDurationSeconds >= s.heartbeatTimeoutSeconds);

const eventArb = fc.record({
  kind: kindArb,
  /** 0 = the latest attempt's token, 1–2 = an older attempt's. */
  attemptsBack: fc.constantFrom(0, 0, 0, 1, 2),
  /** Decided on the read before the last one of that run (a racing Lambda). */
  staleRead: fc.boolean(),
  elapsedMs: fc.integer({ min: 0, max: 40 * SECOND }),
});

const retried = (end: AsyncRunRecord) =>
  end.status === 'TIMED_OUT' || (end.status === 'FAILED' && end.retryable === true);

describe('async run decisions over random histories', () => {
  it('a heartbeat deadline never passes the max-duration deadline and never moves back', () => {
    fc.assert(
      fc.property(
        settingsArb,
        fc.array(fc.integer({ min: 0, max: 4000 * SECOND }), { maxLength: 30 }),
        (settings, gaps) => {
          let run: AsyncRunRecord = acceptedRun({
            settings,
            maxDurationDeadline: T0 + settings.maxDurationSeconds * SECOND,
          });
          run.heartbeatDeadline = Math.min(
            T0 + settings.heartbeatTimeoutSeconds * SECOND,
            run.maxDurationDeadline ?? 0,
          );
          let now = T0;
          for (const gap of gaps) {
            now += gap;
            const before = run.heartbeatDeadline ?? 0;
            const extended = extendedHeartbeatDeadline(run, now);
            expect(extended).toBeLessThanOrEqual(run.maxDurationDeadline ?? 0);
            expect(extended).toBeGreaterThanOrEqual(before);
            const decision = decideHeartbeat(run, claimsOf(run), {}, at(now));
            if (decision.answer.kind === 'heartbeat') {
              expect(decision.answer.heartbeatDeadline).toBe(extended);
              expect(decision.answer.heartbeatDeadline).toBeLessThanOrEqual(run.maxDurationDeadline ?? 0);
            }
            const next = decision.write && applyAsyncWrite(run, decision.write);
            if (next) run = next;
            if (isTerminal(run.status)) break;
          }
        },
      ),
    );
  });

  it('leave at most one terminal outcome per run, one run in flight, one success, and never let an older attempt write', () => {
    fc.assert(
      fc.property(shortSettingsArb, fc.array(eventArb, { minLength: 1, maxLength: 60 }), (settings, events) => {
        const runs: AsyncRunRecord[] = [
          claimedRun({ settings, status: 'QUEUED', leaseOwner: undefined, claimedAt: undefined }),
        ];
        const previousReads = new Map<number, AsyncRunRecord>();
        let now = T0;
        for (const event of events) {
          now += event.elapsedMs;
          const latest = runs.length;
          const attempt = Math.max(1, latest - event.attemptsBack);
          const current = runs[attempt - 1] as AsyncRunRecord;
          const read = event.staleRead ? (previousReads.get(attempt) ?? current) : current;
          previousReads.set(attempt, current);
          const ended = structuredClone(runs.filter((run) => isTerminal(run.status)));

          if (event.kind === 'claim') {
            // The executor's own claim (not decided here): QUEUED → RUNNING under its lease.
            if (current.status === 'QUEUED')
              runs[attempt - 1] = { ...current, status: 'RUNNING', leaseOwner: `executor-${now}`, claimedAt: now };
            continue;
          }
          const context = at(now);
          const claims = claimsOf(read);
          let decision: AsyncDecision;
          if (event.kind === 'accept') decision = decideAccepted(read, read.leaseOwner ?? 'nobody', context);
          else if (event.kind === 'heartbeat') decision = decideHeartbeat(read, claims, { progress: 50 }, context);
          else if (event.kind === 'deadline') decision = decideDeadlines(read, context);
          else if (event.kind === 'cancel') decision = decideCancel(read, context);
          else decision = decideCompletion(read, claims, COMPLETIONS[event.kind], context);

          const applied = decision.write && applyAsyncWrite(current, decision.write);
          if (applied) {
            // The fencing rule: only the latest attempt's run is ever written.
            expect(attempt).toBe(latest);
            if (applied.heartbeatDeadline !== undefined && applied.maxDurationDeadline !== undefined)
              expect(applied.heartbeatDeadline).toBeLessThanOrEqual(applied.maxDurationDeadline);
            // The index entry of a run in flight may be early (kept lazily), never late: no end is found late.
            const earliest = deadlineAtOf(applied);
            if (applied.status === 'RUNNING' && earliest !== undefined) {
              expect(applied.deadlineAt).toBeDefined();
              expect(applied.deadlineAt as number).toBeLessThanOrEqual(earliest);
            }
            runs[attempt - 1] = applied;
            // The completion handler's part: a retryable end makes the next attempt, QUEUED.
            if (isTerminal(applied.status) && retried(applied) && latest < MAX_ATTEMPTS)
              runs.push(
                claimedRun({
                  settings,
                  attempt: latest + 1,
                  status: 'QUEUED',
                  leaseOwner: undefined,
                  claimedAt: undefined,
                }),
              );
          }
          if (decision.answer.kind === 'heartbeat' && read.maxDurationDeadline !== undefined)
            expect(decision.answer.heartbeatDeadline).toBeLessThanOrEqual(read.maxDurationDeadline);

          // An ended run never changes again.
          for (const before of ended) expect(runs[before.attempt - 1]).toEqual(before);
          // Only the latest attempt may be in flight; at most one success, and only the latest.
          expect(runs.slice(0, -1).every((run) => isTerminal(run.status))).toBe(true);
          const successes = runs.filter((run) => run.status === 'SUCCEEDED');
          expect(successes.length).toBeLessThanOrEqual(1);
          if (successes[0]) expect(successes[0].attempt).toBe(runs.length);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('an ended run answers a repeat of its completion with its result, and anything else with RUN_ENDED', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('succeed', 'fail', 'fail-final') as fc.Arbitrary<keyof typeof COMPLETIONS>,
        fc.constantFrom('succeed', 'fail', 'fail-final') as fc.Arbitrary<keyof typeof COMPLETIONS>,
        (first, second) => {
          const run = acceptedRun();
          const decision = decideCompletion(run, claimsOf(run), COMPLETIONS[first], at(T0 + 10 * SECOND));
          const ended = decision.write && applyAsyncWrite(run, decision.write);
          if (!ended) throw new Error('the first completion must apply');
          const again = decideCompletion(ended, claimsOf(run), COMPLETIONS[second], at(T0 + 20 * SECOND));
          expect(again.write).toBeUndefined();
          expect(again.answer).toEqual(
            first === second
              ? { kind: 'completed', replay: true, status: ended.status as AsyncEnd['status'] }
              : { kind: 'refused', code: 'RUN_ENDED' },
          );
        },
      ),
    );
  });
});
