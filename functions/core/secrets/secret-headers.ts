/**
 * Secret target headers (`target.secretHeaders`, e.g. the target's own Authorization): sealed
 * before the job is stored, opened only by the executor right before the call, never returned
 * by the API (each value shows as "***") and never logged. Their names stay readable so the API
 * can show which headers are set.
 */
import type { Target } from '../model.ts';
import type { SecretCipher } from './secret-cipher.ts';

/** How secret headers are stored on a job's target. */
export interface SealedHeaders {
  names: string[];
  /** The JSON of the name → value map, sealed by a SecretCipher bound to the tenant. */
  sealed: string;
}

/** What the API shows instead of a secret value. */
export const REDACTED = '***';

const contextOf = (tenantId: string) => ({ tenantId, purpose: 'chronos-secret-headers' });

/** Seals the headers for `tenantId`; undefined when there are none. */
export async function sealSecretHeaders(
  cipher: SecretCipher,
  tenantId: string,
  headers: Record<string, string> | undefined,
): Promise<SealedHeaders | undefined> {
  if (!headers || Object.keys(headers).length === 0) return undefined;
  return { names: Object.keys(headers), sealed: await cipher.seal(JSON.stringify(headers), contextOf(tenantId)) };
}

/** Opens what sealSecretHeaders stored for `tenantId`. */
export async function openSecretHeaders(
  cipher: SecretCipher,
  tenantId: string,
  sealed: SealedHeaders,
): Promise<Record<string, string>> {
  return JSON.parse(await cipher.open(sealed.sealed, contextOf(tenantId))) as Record<string, string>;
}

/** A target as the API shows it: secret header values replaced by "***", the sealed blob left out. */
export function redactedTarget(target: Target & { secretHeaders?: SealedHeaders }) {
  const { secretHeaders, ...visible } = target;
  if (!secretHeaders) return visible;
  return { ...visible, secretHeaders: Object.fromEntries(secretHeaders.names.map((name) => [name, REDACTED])) };
}
