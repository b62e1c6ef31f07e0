/**
 * Verifying Chronos's calls in a target written in Node (or any runtime with TextDecoder). Chronos
 * signs every call in the Standard Webhooks scheme (functions/core/signing.ts): `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,<base64>`, one per secret that
 * signs at that moment, space-separated, so two during a rotation's overlap). The HMAC and its
 * constant-time comparison are the `standardwebhooks` package's; this adds what a target needs
 * around it: headers as Node or fetch give them, a tolerance of its own, and several secrets of
 * its own during a rotation (a signature matching any of them passes).
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** The Standard Webhooks library refuses timestamps further than this from its clock, whatever is asked. */
export const MAX_TOLERANCE_SECONDS = 300;

/** Headers as `node:http` (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The `whsec_…` secrets to accept: during a rotation, the old one and the new one. */
  secrets: string | readonly string[];
  /** How far the timestamp may be from now, in seconds: 1–300, default 300. */
  toleranceSeconds?: number;
  /** The clock, in epoch ms (tests); default Date.now. */
  now?: () => number;
}

export type WebhookRefusal = 'missing_headers' | 'invalid_timestamp' | 'too_old' | 'too_new' | 'bad_signature';

export type WebhookVerification =
  | { ok: true; id: string; timestamp: Date }
  | { ok: false; reason: WebhookRefusal; message: string };

/**
 * Checks a call: `body` exactly as received (the raw bytes or their UTF-8 text, never a re-serialized
 * JSON object), its headers, and the timestamp within the tolerance. Never throws for a bad call;
 * throws only for bad options (no secret, a secret that is not base64, a tolerance out of range).
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  options: VerifyWebhookOptions,
): WebhookVerification {
  const secrets = typeof options.secrets === 'string' ? [options.secrets] : [...options.secrets];
  if (secrets.length === 0) throw new RangeError('verifyWebhook needs at least one secret');
  const tolerance = options.toleranceSeconds ?? MAX_TOLERANCE_SECONDS;
  if (!Number.isInteger(tolerance) || tolerance < 1 || tolerance > MAX_TOLERANCE_SECONDS) {
    throw new RangeError(`toleranceSeconds must be an integer from 1 to ${MAX_TOLERANCE_SECONDS}`);
  }
  const id = headerOf(headers, WEBHOOK_ID_HEADER);
  const timestamp = headerOf(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signature = headerOf(headers, WEBHOOK_SIGNATURE_HEADER);
  if (!id || !timestamp || !signature) {
    return refused('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are each required once');
  }
  if (!/^\d{1,12}$/.test(timestamp)) return refused('invalid_timestamp', 'webhook-timestamp is not unix seconds');
  const age = Math.floor((options.now ?? Date.now)() / 1000) - Number(timestamp);
  if (age > tolerance) return refused('too_old', `the call was signed ${age} s ago (tolerance ${tolerance} s)`);
  if (-age > tolerance) return refused('too_new', `the call is signed ${-age} s ahead (tolerance ${tolerance} s)`);

  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const signed = {
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: timestamp,
    [WEBHOOK_SIGNATURE_HEADER]: signature,
  };
  let lastRefusal = 'no signature matches any of the secrets';
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(payload, signed, { jsonParse: false });
      return { ok: true, id, timestamp: new Date(Number(timestamp) * 1000) };
    } catch (error) {
      // Only a refused call is a "no"; a malformed secret is the caller's bug and surfaces as such.
      if (!(error instanceof WebhookVerificationError)) throw error;
      lastRefusal = error.message;
    }
  }
  // The library checks the timestamp against its own clock too (±300 s): say so when that is why.
  if (/timestamp too old/i.test(lastRefusal)) return refused('too_old', lastRefusal);
  if (/timestamp too new/i.test(lastRefusal)) return refused('too_new', lastRefusal);
  return refused('bad_signature', 'no signature matches any of the secrets');
}

/** One header's single value; undefined when absent or sent more than once (which no Chronos call does). */
function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | readonly string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  if (typeof value === 'string') return value;
  return value?.length === 1 ? value[0] : undefined;
}

function refused(reason: WebhookRefusal, message: string): WebhookVerification {
  return { ok: false, reason, message };
}
