import { describe, expect, it } from 'vitest';
import { firstFireAt, planFiring } from '#core/fire-plan';
import type { DueJob } from '#core/ports';

const T0 = Date.parse('2026-06-01T12:00:00Z');

function due(schedule: DueJob['schedule'], nextFireAt: number, overrides: Partial<DueJob> = {}): DueJob {
  return {
    tenantId: 't',
    jobId: 'J',
    schedule,
    policies: { misfire: 'fire_once', overlap: 'allow' },
    status: 'ACTIVE',
    version: 1,
    occurrenceCount: 0,
    nextFireAt,
    ...overrides,
  };
}

describe('planning a materialization pass', () => {
  it('materializes every occurrence of a sub-minute schedule within the horizon at once', () => {
    const plan = planFiring(due({ type: 'interval', everySeconds: 5, startAt: T0 }, T0), T0, T0 + 90_000);

    expect(plan.occurrences).toHaveLength(19);
    expect(plan.occurrences[1]).toBe(T0 + 5_000);
    expect(plan.occurrences.at(-1)).toBe(T0 + 90_000);
    expect(plan.nextFireAt).toBe(T0 + 95_000);
  });

  it('continues from where the previous pass stopped, never drifting', () => {
    const plan = planFiring(
      due({ type: 'interval', everySeconds: 7, startAt: T0 }, T0 + 91_000, { occurrenceCount: 13 }),
      T0 + 60_000,
      T0 + 150_000,
    );
    expect(plan.occurrences.every((t) => (t - T0) % 7_000 === 0)).toBe(true);
    expect(plan.occurrences[0]).toBe(T0 + 91_000);
  });

  it('stops at maxRuns and leaves nothing more to fire', () => {
    const plan = planFiring(due({ type: 'interval', everySeconds: 1, startAt: T0, maxRuns: 3 }, T0), T0, T0 + 90_000);
    expect(plan.occurrences).toEqual([T0, T0 + 1_000, T0 + 2_000]);
    expect(plan.nextFireAt).toBeUndefined();
  });

  it('coalesces occurrences missed in an outage into one run by default', () => {
    const job = due({ type: 'interval', everySeconds: 60, startAt: T0 }, T0);
    const now = T0 + 3_600_000 + 30_000; // an hour late

    const plan = planFiring(job, now, now + 90_000);

    expect(plan.occurrences[0]).toBe(T0 + 3_540_000); // the latest missed one, not "now"
    // 30 s late is within the grace period: due, not missed. Then the horizon's future slots.
    expect(plan.occurrences.slice(1)).toEqual([T0 + 3_600_000, T0 + 3_660_000, T0 + 3_720_000]);
    expect(plan.skipped).toBeGreaterThan(50);
  });

  it('skips missed occurrences entirely with the skip policy', () => {
    const job = due({ type: 'interval', everySeconds: 60, startAt: T0 }, T0, {
      policies: { misfire: 'skip', overlap: 'allow' },
    });
    const now = T0 + 3_600_000 + 30_000;
    const plan = planFiring(job, now, now + 90_000);
    expect(plan.occurrences.every((t) => t > now - 60_000)).toBe(true);
  });

  it('fires a one-time job however late it is found', () => {
    const plan = planFiring(
      due({ type: 'once', at: T0 }, T0, { policies: { misfire: 'skip', overlap: 'allow' } }),
      T0 + 86_400_000,
      T0 + 86_490_000,
    );
    expect(plan).toEqual({ occurrences: [T0], nextFireAt: undefined, skipped: 0 });
  });

  it('starts a new recurring job at its first slot from now on, a one-time job at its time', () => {
    expect(firstFireAt({ type: 'once', at: T0 - 5_000 }, T0)).toBe(T0 - 5_000);
    expect(firstFireAt({ type: 'interval', everySeconds: 10, startAt: T0 - 25_000 }, T0)).toBe(T0 + 5_000);
    expect(firstFireAt({ type: 'cron', expression: '0 * * * *', timezone: 'UTC', startAt: T0 - 1 }, T0)).toBe(T0);
  });
});
