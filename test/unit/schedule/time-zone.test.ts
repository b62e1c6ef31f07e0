import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, offsetAt, resolveWallTime } from '#core/schedule/time-zone';

const HOUR = 3_600_000;
const reading = (isoWithoutZone: string) => Date.parse(`${isoWithoutZone}Z`);

describe('time zones', () => {
  it('knows IANA zones in any letter case and rejects unknown ones', () => {
    // act
    const known = canonicalTimeZone('europe/berlin');
    const unknown = canonicalTimeZone('Europe/Atlantis');
    const empty = canonicalTimeZone(' ');
    // assess
    expect(known).toBe('Europe/Berlin');
    expect(unknown).toBeUndefined();
    expect(empty).toBeUndefined();
  });

  it('reads the offset on either side of a transition', () => {
    // act
    const beforeSpring = offsetAt('America/New_York', Date.parse('2026-03-08T06:59:59Z'));
    const afterSpring = offsetAt('America/New_York', Date.parse('2026-03-08T07:00:00Z'));
    // assess
    expect(beforeSpring).toBe(-5 * HOUR);
    expect(afterSpring).toBe(-4 * HOUR);
  });

  it('maps an ordinary reading to its one instant', () => {
    // act
    const resolution = resolveWallTime('Europe/Berlin', reading('2026-07-01T12:00:00'));
    // assess
    expect(resolution).toEqual({ kind: 'unique', at: Date.parse('2026-07-01T10:00:00Z') });
  });

  it('maps a reading in the spring-forward gap to the end of the gap', () => {
    // act
    const newYork = resolveWallTime('America/New_York', reading('2026-03-08T02:30:00'));
    const berlin = resolveWallTime('Europe/Berlin', reading('2026-03-29T02:59:59'));
    // assess
    expect(newYork).toEqual({ kind: 'skipped', gapEnd: Date.parse('2026-03-08T07:00:00Z') });
    expect(berlin).toEqual({ kind: 'skipped', gapEnd: Date.parse('2026-03-29T01:00:00Z') });
  });

  it('maps a reading in the fall-back hour to both of its instants, summer time first', () => {
    // act
    const newYork = resolveWallTime('America/New_York', reading('2026-11-01T01:30:00'));
    const berlin = resolveWallTime('Europe/Berlin', reading('2026-10-25T02:00:00'));
    // assess
    expect(newYork).toEqual({
      kind: 'repeated',
      first: Date.parse('2026-11-01T05:30:00Z'),
      second: Date.parse('2026-11-01T06:30:00Z'),
    });
    expect(berlin).toEqual({
      kind: 'repeated',
      first: Date.parse('2026-10-25T00:00:00Z'),
      second: Date.parse('2026-10-25T01:00:00Z'),
    });
  });
});
