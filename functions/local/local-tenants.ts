/**
 * Tenants of a local Chronos: the dev tenant and its token are written into the tenants table at
 * start (so the printed token and the README's curl example work), and tests can add tenants the
 * way `npm run admin` does, through the same use cases and repository.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '#adapters/dynamodb/conditional';
import { DynamoTenantRepository } from '#adapters/dynamodb/tenant-repository';
import { ulidIds } from '#adapters/ulid-ids';
import { tokenHash } from '#core/tenants/api-tokens';
import { createTenant, issueToken, type TenantAdminDeps } from '#core/tenants/manage-tenants';
import type { IssuedToken, Tenant } from '#core/tenants/model';
import type { TenantQuotas } from '#core/tenants/quotas';

export interface LocalTenants {
  /** Creates a tenant and issues its first token (shown once, here). */
  create(name: string, quotas?: Partial<TenantQuotas>): Promise<{ tenant: Tenant; token: IssuedToken }>;
  /** Issues another token for a tenant. */
  issue(tenantId: string): Promise<IssuedToken>;
  readonly deps: TenantAdminDeps;
}

/** Tenant administration on the local tenants table. */
export function localTenants(dynamodb: DynamoDBClient, tableName: string): LocalTenants {
  const documents = DynamoDBDocumentClient.from(dynamodb, { marshallOptions: { removeUndefinedValues: true } });
  const deps: TenantAdminDeps = { tenants: new DynamoTenantRepository(documents, tableName), ids: ulidIds() };
  return {
    deps,
    create: async (name, quotas) => {
      const tenant = await createTenant(deps, name, Date.now(), quotas ? { quotas } : {});
      return { tenant, token: await issueToken(deps, tenant.tenantId, Date.now()) };
    },
    issue: (tenantId) => issueToken(deps, tenantId, Date.now()),
  };
}

/** Makes sure the dev tenant exists and `token` authenticates it; running it again changes nothing. */
export async function ensureDevTenant(tenants: LocalTenants, tenantId: string, token: string): Promise<void> {
  try {
    await createTenant(tenants.deps, 'Local development', Date.now(), { tenantId });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  if (await tenants.deps.tenants.findGrant(tokenHash(token))) return;
  await issueToken(tenants.deps, tenantId, Date.now(), token);
}
