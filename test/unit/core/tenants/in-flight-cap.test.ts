import { describe, expect, it } from 'vitest';
import { inFlightCapCanBind } from '#core/tenants/in-flight-cap';

describe('whether a tenant in-flight cap can bind', () => {
  it('binds below the most calls the executor fleet can have in flight, never at or above it', () => {
    // Deployed defaults: 10 executors × batches of 10.
    expect(inFlightCapCanBind(99, 100)).toBe(true);
    expect(inFlightCapCanBind(100, 100)).toBe(false);
    expect(inFlightCapCanBind(1_000, 100)).toBe(false);
  });

  it('always binds when the fleet has no known bound', () => {
    expect(inFlightCapCanBind(1_000_000, Number.POSITIVE_INFINITY)).toBe(true);
  });
});
