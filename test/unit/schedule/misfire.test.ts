import { describe, expect, it } from 'vitest';
import { DEFAULT_MISFIRE_GRACE_MS, resolveMisfire, type ScheduleSpec } from '#core/schedule/index';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const MINUTE = 60_000;
const minutes = (...ks: number[]) => ks.map((k) => T0 + k * MINUTE);
const everyMinute: ScheduleSpec = { type: 'interval', everySeconds: 60, startAt: T0 };
// Ten and a half minutes into an outage that began before the first slot: slots 0..10 are in the past.
const NOW = T0 + 10 * MINUTE + 30_000;

describe('resolveMisfire: policies', () => {
  it('fire_once coalesces every missed slot into one run at the latest missed slot', () => {
    // act
    const result = resolveMisfire('fire_once', everyMinute, T0, NOW, 0, 100, 0);
    // assess
    expect(result).toEqual({ fire: minutes(10), nextFireAt: T0 + 11 * MINUTE, skipped: 10 });
  });

  it('fire_once schedules the same run for scanners that look at different moments', () => {
    // act
    const early = resolveMisfire('fire_once', everyMinute, T0, T0 + 10 * MINUTE + 1, 0, 100, 0);
    const late = resolveMisfire('fire_once', everyMinute, T0, T0 + 11 * MINUTE - 1, 0, 100, 0);
    // assess: the run's scheduled time is a slot, never the clock reading
    expect(early.fire).toEqual(minutes(10));
    expect(late.fire).toEqual(minutes(10));
  });

  it('fire_all fires every missed slot in order', () => {
    // act
    const result = resolveMisfire('fire_all', everyMinute, T0, NOW, 0, 100, 0);
    // assess
    expect(result).toEqual({
      fire: minutes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
      nextFireAt: T0 + 11 * MINUTE,
      skipped: 0,
    });
  });

  it('fire_all keeps the newest slots within the cap and counts the oldest as skipped', () => {
    // act
    const result = resolveMisfire('fire_all', everyMinute, T0, NOW, 0, 3, 0);
    // assess
    expect(result).toEqual({ fire: minutes(8, 9, 10), nextFireAt: T0 + 11 * MINUTE, skipped: 8 });
  });

  it('skip fires nothing and jumps to the next future slot', () => {
    // act
    const result = resolveMisfire('skip', everyMinute, T0, NOW, 0, 100, 0);
    // assess
    expect(result).toEqual({ fire: [], nextFireAt: T0 + 11 * MINUTE, skipped: 11 });
  });

  it('resumes from nextFireAt, not from the schedule start', () => {
    // act
    const result = resolveMisfire('fire_all', everyMinute, T0 + 8 * MINUTE, NOW, 8, 100, 0);
    // assess
    expect(result.fire).toEqual(minutes(8, 9, 10));
  });
});

describe('resolveMisfire: missed versus just due', () => {
  it('treats a slot exactly at now as due, not missed, even with no grace', () => {
    // act
    const result = resolveMisfire('skip', everyMinute, T0, T0 + 10 * MINUTE, 0, 100, 0);
    // assess
    expect(result).toEqual({ fire: minutes(10), nextFireAt: T0 + 11 * MINUTE, skipped: 10 });
  });

  it('fires slots within the grace period whatever the policy', () => {
    // act: grace of one minute covers slot 10 (30 s late); slots 0..9 are missed
    const skip = resolveMisfire('skip', everyMinute, T0, NOW, 0, 100, MINUTE);
    const once = resolveMisfire('fire_once', everyMinute, T0, NOW, 0, 100, MINUTE);
    // assess
    expect(skip).toEqual({ fire: minutes(10), nextFireAt: T0 + 11 * MINUTE, skipped: 10 });
    expect(once).toEqual({ fire: minutes(9, 10), nextFireAt: T0 + 11 * MINUTE, skipped: 9 });
  });

  it('uses a one-minute grace by default, so a job created now is not skipped by the first scan', () => {
    // prepare
    const createdNow: ScheduleSpec = { type: 'once', at: T0 };
    // act
    const result = resolveMisfire('skip', createdNow, T0, T0 + 45_000, 0);
    // assess
    expect(DEFAULT_MISFIRE_GRACE_MS).toBe(MINUTE);
    expect(result).toEqual({ fire: [T0], nextFireAt: undefined, skipped: 0 });
  });

  it('changes nothing for a job that is not late', () => {
    // act
    const result = resolveMisfire('fire_all', everyMinute, T0 + 20 * MINUTE, NOW, 20, 100, 0);
    // assess
    expect(result).toEqual({ fire: [], nextFireAt: T0 + 20 * MINUTE, skipped: 0 });
  });
});

describe('resolveMisfire: exhaustion', () => {
  it('fires a missed once job under fire_once and then reports it exhausted', () => {
    // prepare
    const once: ScheduleSpec = { type: 'once', at: T0 };
    // act
    const fireOnce = resolveMisfire('fire_once', once, T0, T0 + 3_600_000, 0);
    const skip = resolveMisfire('skip', once, T0, T0 + 3_600_000, 0);
    // assess
    expect(fireOnce).toEqual({ fire: [T0], nextFireAt: undefined, skipped: 0 });
    expect(skip).toEqual({ fire: [], nextFireAt: undefined, skipped: 1 });
  });

  it('stops at endAt', () => {
    // prepare
    const bounded: ScheduleSpec = { ...everyMinute, endAt: T0 + 5 * MINUTE };
    // act
    const result = resolveMisfire('fire_once', bounded, T0, NOW, 0, 100, 0);
    // assess
    expect(result).toEqual({ fire: minutes(5), nextFireAt: undefined, skipped: 5 });
  });

  it('fires no more runs than maxRuns allows, keeping the newest, and then reports exhaustion', () => {
    // prepare
    const limited: ScheduleSpec = { ...everyMinute, maxRuns: 5 };
    // act
    const fireAll = resolveMisfire('fire_all', limited, T0, NOW, 2, 100, 0);
    const fireOnce = resolveMisfire('fire_once', limited, T0, NOW, 2, 100, 0);
    // assess
    expect(fireAll).toEqual({ fire: minutes(8, 9, 10), nextFireAt: undefined, skipped: 8 });
    expect(fireOnce).toEqual({ fire: minutes(10), nextFireAt: T0 + 11 * MINUTE, skipped: 10 });
  });

  it('does not let skipped slots use up maxRuns', () => {
    // prepare
    const limited: ScheduleSpec = { ...everyMinute, maxRuns: 1 };
    // act
    const result = resolveMisfire('skip', limited, T0, NOW, 0, 100, 0);
    // assess
    expect(result).toEqual({ fire: [], nextFireAt: T0 + 11 * MINUTE, skipped: 11 });
  });
});

describe('resolveMisfire: long outages and cron', () => {
  it('counts a year of missed per-second slots exactly without walking them', () => {
    // prepare
    const everySecond: ScheduleSpec = { type: 'interval', everySeconds: 1, startAt: T0 };
    const yearLater = T0 + 365 * 86_400_000;
    // act
    const result = resolveMisfire('fire_all', everySecond, T0, yearLater, 0, 100, 0);
    // assess: 31 536 001 slots in [T0, yearLater]; the last is exactly at now, so it is due
    expect(result.fire).toHaveLength(100);
    expect(result.fire.at(-1)).toBe(yearLater);
    expect(result.fire[0]).toBe(yearLater - 99_000);
    expect(result.skipped).toBe(31_536_001 - 100);
    expect(result.nextFireAt).toBe(yearLater + 1000);
  });

  it('catches up an hourly cron job across the fall-back hour, one run per real hour', () => {
    // prepare
    const hourly: ScheduleSpec = { type: 'cron', expression: '0 * * * *', timezone: 'America/New_York', startAt: 0 };
    const nextFireAt = Date.parse('2026-11-01T04:00:00Z');
    const now = Date.parse('2026-11-01T08:30:00Z');
    // act
    const fireAll = resolveMisfire('fire_all', hourly, nextFireAt, now, 0, 100, 0);
    const fireOnce = resolveMisfire('fire_once', hourly, nextFireAt, now, 0, 100, 0);
    // assess: 00:00 EDT, 01:00 EDT, 01:00 EST, 02:00 EST, 03:00 EST
    expect(fireAll.fire.map((time) => new Date(time).toISOString())).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T08:00:00.000Z',
    ]);
    expect(fireOnce).toEqual({
      fire: [Date.parse('2026-11-01T08:00:00Z')],
      nextFireAt: Date.parse('2026-11-01T09:00:00Z'),
      skipped: 4,
    });
  });

  it('finds the latest missed slot of a sparse cron job far back in the outage', () => {
    // prepare: monthly, missed for five months
    const monthly: ScheduleSpec = { type: 'cron', expression: '0 6 1 * *', timezone: 'Europe/Berlin', startAt: 0 };
    // act
    const result = resolveMisfire(
      'fire_once',
      monthly,
      Date.parse('2026-01-01T05:00:00Z'),
      Date.parse('2026-05-20T00:00:00Z'),
      0,
    );
    // assess: 1 May 06:00 CEST
    expect(result).toEqual({
      fire: [Date.parse('2026-05-01T04:00:00Z')],
      nextFireAt: Date.parse('2026-06-01T04:00:00Z'),
      skipped: 4,
    });
  });
});
