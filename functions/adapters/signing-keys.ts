/**
 * The executor's (and the notifier's) SigningKeys: each tenant's own secrets, read from the
 * tenants table and opened with the secrets cipher (KMS Decrypt on AWS), cached per process for
 * a short while so that a call costs no read and no KMS request. A secret whose expiry passes is
 * dropped from the cache at once; a rotation's new secret is picked up within CACHE_MS, while the
 * previous one still signs through its overlap window.
 */
import type { SecretCipher } from '#core/secrets/secret-cipher';
import type { SigningKeys } from '#core/signing';
import { type OpenedSigningSecret, openSigningSecrets, type SigningSecretStore } from '#core/tenants/signing-secrets';

/** How long opened secrets are reused. */
export const SIGNING_KEYS_CACHE_MS = 30_000;

/** Per-tenant secrets from the store, cached for `cacheMs`. */
export function storedSigningKeys(
  deps: { secrets: SigningSecretStore; cipher: SecretCipher },
  options: { cacheMs?: number; now?: () => number } = {},
): SigningKeys {
  const cacheMs = options.cacheMs ?? SIGNING_KEYS_CACHE_MS;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { secrets: OpenedSigningSecret[]; until: number }>();
  const signingAt = (secrets: OpenedSigningSecret[], at: number) =>
    secrets.filter((secret) => secret.expiresAt === undefined || secret.expiresAt > at).map(({ secret }) => secret);
  return {
    async keysFor(tenantId) {
      const at = now();
      const cached = cache.get(tenantId);
      const fresh = cached && cached.until > at ? signingAt(cached.secrets, at) : [];
      if (fresh.length > 0) return fresh;
      const secrets = await openSigningSecrets(deps, tenantId, at);
      cache.set(tenantId, { secrets, until: at + cacheMs });
      return signingAt(secrets, at);
    },
  };
}
