/**
 * Tenants of a local Chronos: the dev tenant, its token and its signing secret are written into
 * the tenants table at start (so the printed token and secret and the README's curl example
 * work), and tests can add tenants the way `npm run admin` does, through the same use cases and
 * repositories.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '#adapters/dynamodb/conditional';
import { DynamoSigningSecretRepository } from '#adapters/dynamodb/signing-secret-repository';
import { DynamoTenantRepository } from '#adapters/dynamodb/tenant-repository';
import { ulidIds } from '#adapters/ulid-ids';
import type { SecretCipher } from '#core/secrets/secret-cipher';
import { tokenHash } from '#core/tenants/api-tokens';
import { createTenant, issueToken } from '#core/tenants/manage-tenants';
import type { IssuedToken, Tenant } from '#core/tenants/model';
import { type OnboardDeps, onboardTenant } from '#core/tenants/onboard-tenant';
import type { TenantQuotas } from '#core/tenants/quotas';
import { type IssuedSigningSecret, openSigningSecrets, rotateSigningSecret } from '#core/tenants/signing-secrets';

export interface LocalTenants {
  /** Creates a tenant with its first signing secret, and issues its first token (both shown once, here). */
  create(
    name: string,
    quotas?: Partial<TenantQuotas>,
  ): Promise<{ tenant: Tenant; token: IssuedToken; signingSecret: IssuedSigningSecret }>;
  /** Issues another token for a tenant. */
  issue(tenantId: string): Promise<IssuedToken>;
  readonly deps: OnboardDeps;
}

/** Tenant administration on the local tenants table; signing secrets sealed with `cipher`. */
export function localTenants(dynamodb: DynamoDBClient, tableName: string, cipher: SecretCipher): LocalTenants {
  const documents = DynamoDBDocumentClient.from(dynamodb, { marshallOptions: { removeUndefinedValues: true } });
  const deps: OnboardDeps = {
    tenants: new DynamoTenantRepository(documents, tableName),
    secrets: new DynamoSigningSecretRepository(documents, tableName),
    cipher,
    ids: ulidIds(),
  };
  return {
    deps,
    create: async (name, quotas) => {
      const { tenant, signingSecret } = await onboardTenant(deps, name, Date.now(), quotas ? { quotas } : {});
      return { tenant, signingSecret, token: await issueToken(deps, tenant.tenantId, Date.now()) };
    },
    issue: (tenantId) => issueToken(deps, tenantId, Date.now()),
  };
}

/**
 * Makes sure the dev tenant exists, `token` authenticates it and it has a signing secret this
 * runtime can open; resolves with the secret that signs its calls (newest first), to print. A
 * secret sealed under another local key (an earlier run on the same tables) is replaced.
 */
export async function ensureDevTenant(tenants: LocalTenants, tenantId: string, token: string): Promise<string> {
  try {
    await createTenant(tenants.deps, 'Local development', Date.now(), { tenantId });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  if (!(await tenants.deps.tenants.findGrant(tokenHash(token))))
    await issueToken(tenants.deps, tenantId, Date.now(), token);
  try {
    const [newest] = await openSigningSecrets(tenants.deps, tenantId, Date.now());
    if (newest) return newest.secret;
  } catch {
    // None yet, or sealed under another key: issue one.
  }
  return (await rotateSigningSecret(tenants.deps, tenantId, Date.now(), 0)).secret;
}
