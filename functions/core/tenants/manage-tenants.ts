/**
 * The admin use cases: create tenants, issue, list and revoke their API tokens. A token is
 * returned once, by `issueToken`; only its SHA-256 and a short visible prefix are stored.
 */
import { NotFoundError } from '../errors.ts';
import type { IdGenerator } from '../ports.ts';
import { newApiToken, tokenHash, visiblePrefixOf } from './api-tokens.ts';
import type { ApiTokenInfo, IssuedToken, Tenant } from './model.ts';
import type { TenantRepository } from './ports.ts';
import { QUOTA_KEYS, type TenantQuotas } from './quotas.ts';
import { ADMIN_TENANT_ID } from './reserved.ts';

export interface TenantAdminDeps {
  tenants: TenantRepository;
  ids: IdGenerator;
}

/** Creates a tenant named `name` (ids are generated unless given, e.g. the local dev tenant). */
export async function createTenant(
  deps: TenantAdminDeps,
  name: string,
  now: number,
  options: { tenantId?: string; quotas?: Partial<TenantQuotas> } = {},
): Promise<Tenant> {
  if (name.trim() === '') throw new Error('a tenant needs a name');
  const tenantId = options.tenantId ?? deps.ids.next(now);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(tenantId) || tenantId === ADMIN_TENANT_ID)
    throw new Error(`invalid tenant id "${tenantId}"`);
  const quotas = options.quotas ? pickQuotas(options.quotas) : undefined;
  const tenant: Tenant = { tenantId, name, createdAt: now, ...(quotas ? { quotas } : {}) };
  await deps.tenants.createTenant(tenant);
  return tenant;
}

/** Issues a new token for an existing tenant. `token` may be given (the local dev token); otherwise it is random. */
export async function issueToken(
  deps: TenantAdminDeps,
  tenantId: string,
  now: number,
  token: string = newApiToken(),
): Promise<IssuedToken> {
  if (!(await deps.tenants.getTenant(tenantId))) throw new NotFoundError(`tenant ${tenantId}`);
  const issued: IssuedToken = {
    tokenId: deps.ids.next(now),
    tenantId,
    prefix: visiblePrefixOf(token),
    createdAt: now,
    token,
  };
  await deps.tenants.saveToken(issued);
  return issued;
}

/** A tenant's tokens (prefix, id, created, revoked); NotFoundError for an unknown tenant. */
export async function listTokens(deps: Pick<TenantAdminDeps, 'tenants'>, tenantId: string): Promise<ApiTokenInfo[]> {
  if (!(await deps.tenants.getTenant(tenantId))) throw new NotFoundError(`tenant ${tenantId}`);
  return deps.tenants.listTokens(tenantId);
}

/** Revokes a token; NotFoundError when there is none with that id. */
export async function revokeToken(deps: Pick<TenantAdminDeps, 'tenants'>, tokenId: string, now: number) {
  if (!(await deps.tenants.revokeToken(tokenId, now))) throw new NotFoundError(`token ${tokenId}`);
}

/** The tenant a bearer token authenticates, or undefined (unknown or revoked: the caller cannot tell). */
export async function authenticate(
  deps: Pick<TenantAdminDeps, 'tenants'>,
  token: string,
): Promise<{ tenantId: string; tokenId: string } | undefined> {
  const grant = await deps.tenants.findGrant(tokenHash(token));
  if (!grant || grant.revokedAt !== undefined) return undefined;
  return { tenantId: grant.tenantId, tokenId: grant.tokenId };
}

function pickQuotas(quotas: Partial<TenantQuotas>): Partial<TenantQuotas> {
  const picked: Partial<TenantQuotas> = {};
  for (const key of QUOTA_KEYS) {
    const value = quotas[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value <= 0) throw new Error(`quota ${key} must be a positive integer`);
    picked[key] = value;
  }
  return picked;
}
