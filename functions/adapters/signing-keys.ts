/**
 * Signing secrets from the environment: one pair for every tenant until per-tenant secrets
 * (stored encrypted with the tenants) implement the same SigningKeys port.
 */
import { fixedSigningKeys, type SigningKeySet, type SigningKeys } from '#core/signing';
import { ENV } from './environment.ts';

/** Shorter secrets are refused: HMAC-SHA256 is only as strong as its key. */
export const MIN_SECRET_LENGTH = 32;

function secretFrom(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const secret = env[name];
  if (secret === undefined || secret === '') return undefined;
  if (secret.length < MIN_SECRET_LENGTH)
    throw new Error(`Environment variable ${name} must be at least ${MIN_SECRET_LENGTH} characters long`);
  return secret;
}

/** SIGNING_SECRET_CURRENT (required) and SIGNING_SECRET_NEXT (optional, set during a rotation). */
export function signingKeysFromEnv(env: NodeJS.ProcessEnv = process.env): SigningKeys {
  const current = secretFrom(env, ENV.signingSecretCurrent);
  if (current === undefined) throw new Error(`Environment variable ${ENV.signingSecretCurrent} is not set`);
  const next = secretFrom(env, ENV.signingSecretNext);
  const keys: SigningKeySet = next === undefined ? { current } : { current, next };
  return fixedSigningKeys(keys);
}
