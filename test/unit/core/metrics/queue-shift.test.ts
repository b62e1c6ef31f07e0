import { describe, expect, it } from 'vitest';
import { type QueuedView, queueShiftsOf } from '#core/metrics/queue-shift';
import { minuteOf } from '#core/metrics/run-sample';

const DUE = Date.UTC(2026, 5, 1, 12, 30, 42);
const run = (over: Partial<QueuedView> = {}): QueuedView => ({
  tenantId: 't',
  status: 'QUEUED',
  scheduledFor: DUE,
  ...over,
});

describe('queue shifts', () => {
  it('counts a run in when it is created queued, in the minute it is due', () => {
    expect(queueShiftsOf(undefined, run())).toEqual([{ tenantId: 't', minute: minuteOf(DUE), direction: 'in' }]);
  });

  it('uses the later of occurrence and availability: a retry is due at its backoff', () => {
    const retry = run({ availableAt: DUE + 5 * 60_000 });
    expect(queueShiftsOf(undefined, retry)).toEqual([
      { tenantId: 't', minute: minuteOf(DUE + 5 * 60_000), direction: 'in' },
    ]);
  });

  it('counts it out of that same minute when it leaves QUEUED, whichever way', () => {
    const out = [{ tenantId: 't', minute: minuteOf(DUE), direction: 'out' }];
    expect(queueShiftsOf(run(), run({ status: 'RUNNING' }))).toEqual(out);
    expect(queueShiftsOf(run(), run({ status: 'CANCELLED' }))).toEqual(out);
    expect(queueShiftsOf(run(), run({ status: 'DEAD_LETTERED' }))).toEqual(out);
    expect(queueShiftsOf(run(), undefined)).toEqual(out); // deleted while queued
  });

  it('moves a queued run whose due minute changes, and ignores other changes of a queued run', () => {
    expect(queueShiftsOf(run(), run({ availableAt: DUE + 120_000 }))).toEqual([
      { tenantId: 't', minute: minuteOf(DUE), direction: 'out' },
      { tenantId: 't', minute: minuteOf(DUE + 120_000), direction: 'in' },
    ]);
    expect(queueShiftsOf(run(), run({ availableAt: DUE + 1 }))).toEqual([]);
  });

  it('counts a run put back into QUEUED, and nothing for changes that never touch QUEUED', () => {
    expect(queueShiftsOf(run({ status: 'RUNNING' }), run())).toEqual([
      { tenantId: 't', minute: minuteOf(DUE), direction: 'in' },
    ]);
    expect(queueShiftsOf(run({ status: 'RUNNING' }), run({ status: 'SUCCEEDED' }))).toEqual([]);
    expect(queueShiftsOf(run({ status: 'SUCCEEDED' }), undefined)).toEqual([]);
  });
});
