import { describe, expect, it } from 'vitest';
import { NotFoundError } from '#core/errors';
import { bearerTokenOf, tokenHash } from '#core/tenants/api-tokens';
import { authenticate, createTenant, issueToken, listTokens, revokeToken } from '#core/tenants/manage-tenants';
import { InMemoryTenantRepository } from '../../../support/fakes/in-memory-tenants.ts';

function setup() {
  let n = 0;
  const tenants = new InMemoryTenantRepository();
  return { tenants, ids: { next: () => `ID${String(++n).padStart(4, '0')}` } };
}

describe('tenants and tokens', () => {
  it('issues a random 256-bit token that authenticates its tenant and is stored only as a hash', async () => {
    const deps = setup();
    const tenant = await createTenant(deps, 'team a', 1);

    const issued = await issueToken(deps, tenant.tenantId, 2);
    const other = await issueToken(deps, tenant.tenantId, 3);

    expect(issued.token).toMatch(/^chronos_[A-Za-z0-9_-]{43}$/);
    expect(other.token).not.toBe(issued.token);
    expect(await authenticate(deps, issued.token)).toEqual({ tenantId: tenant.tenantId, tokenId: issued.tokenId });
    const stored = JSON.stringify([...deps.tenants.tokens.values()]);
    expect(stored).not.toContain(issued.token);
    expect(stored).toContain(tokenHash(issued.token));
  });

  it('lists prefixes only, and a revoked token no longer authenticates', async () => {
    const deps = setup();
    const tenant = await createTenant(deps, 'team a', 1);
    const issued = await issueToken(deps, tenant.tenantId, 2);

    await revokeToken(deps, issued.tokenId, 5);
    const listed = await listTokens(deps, tenant.tenantId);

    expect(listed).toEqual([
      {
        tokenId: issued.tokenId,
        tenantId: tenant.tenantId,
        prefix: issued.token.slice(0, 16),
        createdAt: 2,
        revokedAt: 5,
      },
    ]);
    expect(await authenticate(deps, issued.token)).toBeUndefined();
    expect(await authenticate(deps, 'chronos_unknown-token-never-issued')).toBeUndefined();
  });

  it('refuses tokens for unknown tenants, unknown token ids and the reserved admin id', async () => {
    const deps = setup();
    await expect(issueToken(deps, 'nobody', 1)).rejects.toBeInstanceOf(NotFoundError);
    await expect(revokeToken(deps, 'nothing', 1)).rejects.toBeInstanceOf(NotFoundError);
    await expect(createTenant(deps, 'x', 1, { tenantId: 'admin' })).rejects.toThrow(/invalid tenant id/);
  });

  it('reads bearer credentials, and nothing else, from Authorization', () => {
    expect(bearerTokenOf('Bearer chronos_abcdefghijklmnop')).toBe('chronos_abcdefghijklmnop');
    expect(bearerTokenOf('bearer chronos_abcdefghijklmnop')).toBeUndefined();
    expect(bearerTokenOf('Bearer short')).toBeUndefined();
    expect(bearerTokenOf('Basic dXNlcjpwYXNzd29yZA==')).toBeUndefined();
    expect(bearerTokenOf(undefined)).toBeUndefined();
  });
});
