/**
 * A new tenant as `npm run admin -- tenants create` makes it: the tenant and its first signing
 * secret, shown once. The secret is issued right after the tenant is written; should that fail,
 * `signing-secrets rotate <tenantId>` issues it (a tenant without one has its calls held back,
 * never sent unsigned).
 */
import type { SecretCipher } from '../secrets/secret-cipher.ts';
import { createTenant, type TenantAdminDeps } from './manage-tenants.ts';
import type { Tenant } from './model.ts';
import type { TenantQuotas } from './quotas.ts';
import { type IssuedSigningSecret, rotateSigningSecret, type SigningSecretStore } from './signing-secrets.ts';

export interface OnboardDeps extends TenantAdminDeps {
  secrets: SigningSecretStore;
  cipher: SecretCipher;
}

/** Creates the tenant and issues its first signing secret. */
export async function onboardTenant(
  deps: OnboardDeps,
  name: string,
  now: number,
  options: { tenantId?: string; quotas?: Partial<TenantQuotas> } = {},
): Promise<{ tenant: Tenant; signingSecret: IssuedSigningSecret }> {
  const tenant = await createTenant(deps, name, now, options);
  const signingSecret = await rotateSigningSecret(deps, tenant.tenantId, now, 0);
  return { tenant, signingSecret };
}
