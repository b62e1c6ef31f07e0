/** In-memory fakes of the tenant ports, for unit tests of the tenant and quota use cases. */
import { NotFoundError } from '#core/errors';
import { tokenHash } from '#core/tenants/api-tokens';
import type { ApiTokenInfo, IssuedToken, Tenant, TokenGrant } from '#core/tenants/model';
import type { RunSlots, TenantRepository } from '#core/tenants/ports';

export class InMemoryTenantRepository implements TenantRepository {
  readonly tenants = new Map<string, Tenant>();
  readonly tokens = new Map<string, ApiTokenInfo & { hash: string }>();

  async createTenant(tenant: Tenant) {
    if (this.tenants.has(tenant.tenantId)) throw new Error('exists');
    this.tenants.set(tenant.tenantId, tenant);
  }
  async getTenant(tenantId: string) {
    return this.tenants.get(tenantId);
  }
  async listTenants() {
    return [...this.tenants.values()];
  }
  async saveToken(token: IssuedToken) {
    if (!this.tenants.has(token.tenantId)) throw new NotFoundError(`tenant ${token.tenantId}`);
    const { token: secret, ...info } = token;
    this.tokens.set(token.tokenId, { ...info, hash: tokenHash(secret) });
  }
  async listTokens(tenantId: string) {
    return [...this.tokens.values()].filter((t) => t.tenantId === tenantId).map(({ hash: _, ...info }) => info);
  }
  async revokeToken(tokenId: string, now: number) {
    const token = this.tokens.get(tokenId);
    if (!token) return false;
    token.revokedAt ??= now;
    return true;
  }
  async findGrant(sha256: string): Promise<TokenGrant | undefined> {
    const token = [...this.tokens.values()].find((t) => t.hash === sha256);
    return (
      token && {
        tenantId: token.tenantId,
        tokenId: token.tokenId,
        ...(token.revokedAt ? { revokedAt: token.revokedAt } : {}),
      }
    );
  }
}

/** Slots with the adapter's semantics (cap, expiry), recording what happened. */
export class InMemoryRunSlots implements RunSlots {
  readonly held = new Map<string, Map<string, number>>();
  readonly released: string[] = [];

  async acquire(tenantId: string, runId: string, cap: number, expiresAt: number, now: number) {
    const slots = this.held.get(tenantId) ?? new Map<string, number>();
    this.held.set(tenantId, slots);
    for (const [id, expiry] of slots) if (expiry <= now) slots.delete(id);
    if (slots.size >= cap && !slots.has(runId)) return false;
    slots.set(runId, expiresAt);
    return true;
  }
  async release(tenantId: string, runId: string) {
    this.held.get(tenantId)?.delete(runId);
    this.released.push(runId);
  }
}
