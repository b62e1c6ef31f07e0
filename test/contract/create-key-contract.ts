/** The CreateKeyRepository part of the repository contract: POST /v1/jobs Idempotency-Keys. */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreateKeyRepository } from '#core/ports';
import { type ContractRepositories, NOW, unique } from './contract-support.ts';

const NOW_S = Math.floor(NOW / 1000);

export function createKeyContract(repositories: () => ContractRepositories) {
  describe('create keys', () => {
    let keys: CreateKeyRepository;
    beforeAll(() => {
      ({ createKeys: keys } = repositories());
    });

    it('binds a key once per tenant and answers the earlier binding to every later bind', async () => {
      const [tenant, other] = [unique('t'), unique('t')];
      const first = { jobId: 'JOB-1', fingerprint: 'f1' };
      expect(await keys.bind(tenant, 'key', first, NOW, NOW_S + 60)).toBeUndefined();
      expect(await keys.bind(tenant, 'key', { jobId: 'JOB-2', fingerprint: 'f2' }, NOW, NOW_S + 60)).toEqual(first);
      expect(await keys.bind(tenant, 'key', { jobId: 'JOB-3', fingerprint: 'f1' }, NOW, NOW_S + 60)).toEqual(first);
      // Another tenant's key of the same name is its own.
      expect(await keys.bind(other, 'key', { jobId: 'JOB-4', fingerprint: 'f1' }, NOW, NOW_S + 60)).toBeUndefined();
      expect(await keys.bind(tenant, 'key2', { jobId: 'JOB-5', fingerprint: 'f1' }, NOW, NOW_S + 60)).toBeUndefined();
    });

    it('keeps a binding through its expiry second and binds afresh after it, whether TTL deleted it or not', async () => {
      const tenant = unique('t');
      const first = { jobId: 'JOB-1', fingerprint: 'f1' };
      const second = { jobId: 'JOB-2', fingerprint: 'f2' };
      expect(await keys.bind(tenant, 'key', first, NOW, NOW_S + 10)).toBeUndefined();
      const atExpiry = (NOW_S + 10) * 1000 + 999;
      expect(await keys.bind(tenant, 'key', second, atExpiry, NOW_S + 99)).toEqual(first);
      const after = (NOW_S + 11) * 1000;
      expect(await keys.bind(tenant, 'key', second, after, NOW_S + 99)).toBeUndefined();
      expect(await keys.bind(tenant, 'key', first, after, NOW_S + 99)).toEqual(second);
    });
  });
}
