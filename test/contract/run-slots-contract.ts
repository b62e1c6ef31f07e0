/** The RunSlots part of the repository contract: the executors' per-tenant in-flight slots. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunSlots } from '#core/tenants/ports';
import { type ContractRepositories, NOW, unique } from './contract-support.ts';

export function runSlotsContract(repositories: () => ContractRepositories) {
  describe('run slots', () => {
    let slots: RunSlots;
    beforeAll(() => {
      ({ slots } = repositories());
    });

    it('holds at most `cap` slots per tenant, keeps a run its own slot, and frees a slot on release', async () => {
      const [tenant, other] = [unique('t'), unique('t')];
      expect(await slots.acquire(tenant, 'r1', 2, NOW + 30_000, NOW)).toBe(true);
      expect(await slots.acquire(tenant, 'r2', 2, NOW + 30_000, NOW)).toBe(true);
      expect(await slots.acquire(tenant, 'r3', 2, NOW + 30_000, NOW)).toBe(false);
      // A redelivered message of a run that holds a slot keeps it, even at the cap.
      expect(await slots.acquire(tenant, 'r1', 2, NOW + 60_000, NOW)).toBe(true);
      expect(await slots.acquire(other, 'r3', 2, NOW + 30_000, NOW)).toBe(true);
      await slots.release(tenant, 'r2');
      await slots.release(tenant, 'never-held');
      await slots.release(unique('t'), 'r1');
      expect(await slots.acquire(tenant, 'r3', 2, NOW + 30_000, NOW)).toBe(true);
      expect(await slots.acquire(tenant, 'r4', 2, NOW + 30_000, NOW)).toBe(false);
    });

    it('reclaims a slot whose expiry has come, and not a millisecond before', async () => {
      const tenant = unique('t');
      expect(await slots.acquire(tenant, 'dead', 1, NOW + 30_000, NOW)).toBe(true);
      expect(await slots.acquire(tenant, 'next', 1, NOW + 60_000, NOW + 29_999)).toBe(false);
      expect(await slots.acquire(tenant, 'next', 1, NOW + 60_000, NOW + 30_000)).toBe(true);
      expect(await slots.acquire(tenant, 'dead', 1, NOW + 90_000, NOW + 30_001)).toBe(false);
    });
  });
}
