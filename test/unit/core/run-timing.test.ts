import { describe, expect, it } from 'vitest';
import { deliveryStamp } from '#core/delivery-stamp';
import type { Run } from '#core/model';
import { DEFAULT_SLA_SECONDS, runTiming } from '#core/run-timing';
import { runView } from '#core/views';

const DUE = Date.UTC(2026, 5, 1, 12, 0, 0);
const base: Run = {
  tenantId: 't',
  jobId: 'j',
  runId: 'j_1_1',
  scheduledFor: DUE,
  attempt: 1,
  status: 'SUCCEEDED',
  createdAt: DUE - 60_000,
};

describe('run timing', () => {
  it('splits a late run into Chronos start lag and target duration', () => {
    const run = { ...base, receivedAt: DUE - 400, startedAt: DUE + 1_200, durationMs: 8_000, completedAt: DUE + 9_200 };

    expect(runTiming(run)).toEqual({
      dueAt: DUE,
      dispatchLagMs: -400,
      startLagMs: 1_200,
      durationMs: 8_000,
      slaSeconds: DEFAULT_SLA_SECONDS,
      slaMet: true,
    });
  });

  it('measures a retry from its backoff, not from the occurrence', () => {
    const retry = { ...base, attempt: 2, availableAt: DUE + 30_000, startedAt: DUE + 30_050 };

    expect(runTiming(retry)).toMatchObject({ dueAt: DUE + 30_000, startLagMs: 50, slaMet: true });
  });

  it('measures a run created after its occurrence (a job created with a past `at`) from its creation', () => {
    const backdated = { ...base, createdAt: DUE + 3_600_000, receivedAt: DUE + 3_600_300, startedAt: DUE + 3_600_400 };

    expect(runTiming(backdated)).toMatchObject({
      dueAt: DUE + 3_600_000,
      dispatchLagMs: 300,
      startLagMs: 400,
      slaMet: true,
    });
  });

  it('measures a retry of a backdated run from the later of its backoff and its creation', () => {
    const retry = {
      ...base,
      attempt: 2,
      createdAt: DUE + 3_600_000,
      availableAt: DUE + 3_630_000,
      startedAt: DUE + 3_630_050,
    };

    expect(runTiming(retry)).toMatchObject({ dueAt: DUE + 3_630_000, startLagMs: 50 });
  });

  it("judges the SLA by the run's recorded slaSeconds first, then the job's", () => {
    const late = { ...base, startedAt: DUE + 3_000 };

    expect(runTiming(late, 2).slaMet).toBe(false);
    expect(runTiming({ ...late, slaSeconds: 5 }, 2).slaMet).toBe(true);
  });

  it('has no verdict before the call starts, and a miss for a run dead-lettered unstarted', () => {
    expect(runTiming({ ...base, status: 'QUEUED' })).toMatchObject({ startLagMs: null, slaMet: null });
    expect(runTiming({ ...base, status: 'DEAD_LETTERED' }).slaMet).toBe(false);
  });

  it('shows the timings in the run view, as ISO instants and milliseconds', () => {
    const view = runView({ ...base, enqueuedAt: DUE - 2_000, receivedAt: DUE + 100, startedAt: DUE + 150 }, 10);

    expect(view).toMatchObject({
      enqueuedAt: new Date(DUE - 2_000).toISOString(),
      receivedAt: new Date(DUE + 100).toISOString(),
      dueAt: new Date(DUE).toISOString(),
      dispatchLagMs: 100,
      startLagMs: 150,
      slaSeconds: 10,
      slaMet: true,
    });
  });

  it("stamps SQS's timestamps and the job's SLA onto the outcome", () => {
    expect(deliveryStamp({ slaSeconds: 9 }, { sentAt: 1, firstReceivedAt: 2 })).toEqual({
      slaSeconds: 9,
      enqueuedAt: 1,
      receivedAt: 2,
    });
    expect(deliveryStamp({})).toEqual({ slaSeconds: DEFAULT_SLA_SECONDS });
  });
});
