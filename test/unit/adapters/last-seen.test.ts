/** The bounded "last seen" memory the conditional-write adapters use as a first-try hint. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LastSeen } from '#adapters/dynamodb/last-seen';

describe('LastSeen', () => {
  it('keeps the last value written per key, and forgets a deleted one', () => {
    const seen = new LastSeen<number>(3);
    seen.set('a', 1);
    seen.set('a', 2);
    seen.delete('b');
    expect(seen.get('a')).toBe(2);
    seen.delete('a');
    expect(seen.get('a')).toBeUndefined();
  });

  it('drops the least recently written key past its capacity, keeping the others', () => {
    const seen = new LastSeen<number>(2);
    seen.set('a', 1);
    seen.set('b', 2);
    seen.set('a', 3); // a is now the most recent
    seen.set('c', 4);
    expect([seen.get('a'), seen.get('b'), seen.get('c')]).toEqual([3, undefined, 4]);
  });

  it('never holds more than its capacity, and always the latest writes (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'), fc.nat()), {
          maxLength: 60,
        }),
        (capacity, writes) => {
          const seen = new LastSeen<number>(capacity);
          for (const [key, value] of writes) seen.set(key, value);
          expect(seen.size).toBeLessThanOrEqual(capacity);
          // The `capacity` most recently written distinct keys are all there, with their last value.
          const recent = [...new Map(writes.map(([key, value]) => [key, value]))].filter(([key]) =>
            writes
              .map(([k]) => k)
              .reverse()
              .filter((k, i, all) => all.indexOf(k) === i)
              .slice(0, capacity)
              .includes(key),
          );
          for (const [key, value] of recent) expect(seen.get(key)).toBe(value);
        },
      ),
    );
  });
});
