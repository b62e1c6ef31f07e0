/**
 * Signed calls, in the Standard Webhooks scheme (https://www.standardwebhooks.com): every call
 * Chronos makes carries
 *   webhook-id: <the occurrence's idempotency key, the same across retries and recoveries>
 *   webhook-timestamp: <unix seconds>
 *   webhook-signature: v1,<base64 HMAC-SHA256> [v1,<base64> ...]
 * over `<id>.<timestamp>.<body>`, one signature per secret of the tenant that signs at that moment
 * (two or more during a rotation's overlap). A target verifies with any Standard Webhooks library
 * (the `standardwebhooks` packages, Svix's) and its tenant's `whsec_` secret; no other tenant's
 * secret verifies it. The signing itself is the reference library's, not a copy of the scheme.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** Every signing secret starts with this (the Standard Webhooks secret format). */
export const SIGNING_SECRET_PREFIX = 'whsec_';
/** Random bytes in a new secret: the scheme accepts 24 to 64; 32 is HMAC-SHA256's own block of strength. */
const SECRET_BYTES = 32;

/** Where a tenant's signing secrets come from: those that sign right now, newest first. */
export interface SigningKeys {
  keysFor(tenantId: string): Promise<readonly string[]>;
}

/** The same secrets for every tenant (tests). */
export function fixedSigningKeys(secrets: readonly string[]): SigningKeys {
  return { keysFor: async () => secrets };
}

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** What is signed besides the timestamp: the message id and the exact body sent (empty without one). */
export interface SignedMessage {
  id: string;
  body?: string;
}

/**
 * The three Standard Webhooks headers of a call made at `nowMs`, signed with each of `secrets`.
 * Throws when there is no secret: an unsigned call must never go out.
 */
export function webhookHeaders(message: SignedMessage, secrets: readonly string[], nowMs: number) {
  if (secrets.length === 0) throw new Error('no signing secret: the call cannot be signed');
  const at = new Date(Math.floor(nowMs / 1000) * 1000);
  const body = message.body ?? '';
  return {
    [WEBHOOK_ID_HEADER]: message.id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(at.getTime() / 1000),
    [WEBHOOK_SIGNATURE_HEADER]: secrets.map((secret) => new Webhook(secret).sign(message.id, at, body)).join(' '),
  };
}

/**
 * Signs a message for `tenantId` with the secrets that sign for it now: what the executor and the
 * onFailure notifier add to every request they send (`id` = the occurrence's idempotency key).
 */
export async function signFor(
  keys: SigningKeys,
  tenantId: string,
  message: SignedMessage,
  nowMs: number,
): Promise<Record<string, string>> {
  return webhookHeaders(message, await keys.keysFor(tenantId), nowMs);
}
