/**
 * Callback tokens: the only credential of the callback routes (`/v1/callbacks/{token}/...`), since
 * the worker that calls back may hold no API token. A token names one attempt of one occurrence
 * (tenant, job, scheduledFor, attempt) and carries an HMAC-SHA256 of that under a key only
 * Chronos holds: nobody can make one for another attempt, tenant or job.
 *
 *   base64url( version 1 B | scheduledFor 6 B | attempt 2 B | tenant length 1 B | tenant | job length 1 B | job | MAC 32 B )
 *
 * Signed, not encrypted: the claims are readable by whoever holds the token (the worker it was
 * sent to), which is harmless (they are its own ids), and they cannot be changed. The MAC covers a
 * label as well, so a key shared by mistake with another use cannot make tokens for this one.
 *
 * Deterministic: the same attempt always gets the same token, so an executor that calls again
 * after a takeover (a recovery, same attempt) hands out the same credential; the attempt number is
 * what fences workers apart (a retry is a new attempt, hence a new token: completion-decision.ts).
 *
 * Keys rotate: seal uses the newest, open accepts any (newest first). Opening never throws: a
 * token too long, not base64url, not canonical, of an unknown version or with a wrong MAC is a
 * typed refusal, checked in that order, the length before any decoding.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isRepresentableInstant, MAX_ATTEMPT_NUMBER } from '../bounds.ts';

export interface CallbackClaims {
  tenantId: string;
  jobId: string;
  scheduledFor: number;
  attempt: number;
}

export const CALLBACK_TOKEN_VERSION = 1;
/** Longest tenant or job id a token holds, in UTF-8 bytes (tenant ids are ≤ 64 characters, job ids ULIDs). */
export const MAX_CLAIM_ID_BYTES = 64;
const MAC_BYTES = 32;
const FIXED_BYTES = 1 + 6 + 2 + 1 + 1;
const MIN_TOKEN_BYTES = FIXED_BYTES + 2 + MAC_BYTES;
const MAX_TOKEN_BYTES = FIXED_BYTES + 2 * MAX_CLAIM_ID_BYTES + MAC_BYTES;
/** Longest token accepted: base64url of the largest payload (228 characters); anything longer is refused undecoded. */
export const MAX_CALLBACK_TOKEN_CHARS = Math.ceil((MAX_TOKEN_BYTES * 4) / 3);
/** Shortest key accepted: HMAC-SHA256 keys below 32 bytes weaken it. */
export const MIN_CALLBACK_KEY_CHARS = 32;
const LABEL = Buffer.from('chronos callback token\0', 'utf8');
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export type CallbackTokenRefusal = 'too_long' | 'malformed' | 'unknown_version' | 'bad_signature';

export type OpenedCallbackToken = { ok: true; claims: CallbackClaims } | { ok: false; refusal: CallbackTokenRefusal };

/** A new key: 32 random bytes as base64url (43 characters). */
export function newCallbackKey(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The token of `claims`, MACed with the newest of `keys` (newest first). Throws on no key, a key
 * shorter than MIN_CALLBACK_KEY_CHARS, or claims no run Chronos makes can have (ids empty, ill-formed or
 * past MAX_CLAIM_ID_BYTES, a time outside bounds.ts, an attempt outside 1–999): callers pass a run's key.
 */
export function sealCallbackToken(claims: CallbackClaims, keys: readonly string[]): string {
  const key = keys[0];
  if (key === undefined || key.length < MIN_CALLBACK_KEY_CHARS)
    throw new Error('no callback key of at least 32 characters: the token cannot be sealed');
  const tenant = Buffer.from(claims.tenantId, 'utf8');
  const job = Buffer.from(claims.jobId, 'utf8');
  if (!isRepresentableInstant(claims.scheduledFor)) throw new RangeError('scheduledFor is not a representable instant');
  if (!Number.isSafeInteger(claims.attempt) || claims.attempt < 1 || claims.attempt > MAX_ATTEMPT_NUMBER)
    throw new RangeError(`attempt must be an integer from 1 to ${MAX_ATTEMPT_NUMBER}`);
  for (const [id, bytes] of [
    [claims.tenantId, tenant],
    [claims.jobId, job],
  ] as const) {
    if (!id.isWellFormed() || bytes.length < 1 || bytes.length > MAX_CLAIM_ID_BYTES)
      throw new RangeError(`ids in a callback token must be well-formed and 1 to ${MAX_CLAIM_ID_BYTES} bytes`);
  }
  const payload = Buffer.alloc(FIXED_BYTES + tenant.length + job.length);
  let at = payload.writeUInt8(CALLBACK_TOKEN_VERSION, 0);
  at = payload.writeUIntBE(claims.scheduledFor, at, 6);
  at = payload.writeUInt16BE(claims.attempt, at);
  at = payload.writeUInt8(tenant.length, at);
  at += tenant.copy(payload, at);
  at = payload.writeUInt8(job.length, at);
  job.copy(payload, at);
  return Buffer.concat([payload, macOf(payload, key)]).toString('base64url');
}

/** The claims of `token` when one of `keys` made it, or why it is refused. Never throws. */
export function openCallbackToken(token: unknown, keys: readonly string[]): OpenedCallbackToken {
  if (typeof token !== 'string') return refused('malformed');
  if (token.length > MAX_CALLBACK_TOKEN_CHARS) return refused('too_long');
  if (!BASE64URL.test(token)) return refused('malformed');
  const bytes = Buffer.from(token, 'base64url');
  // One spelling per token: base64url has several for the same bytes (unused low bits in the
  // last character), and a changed character must never open as the same token.
  if (bytes.toString('base64url') !== token) return refused('malformed');
  if (bytes.length < MIN_TOKEN_BYTES) return refused('malformed');
  if (bytes.readUInt8(0) !== CALLBACK_TOKEN_VERSION) return refused('unknown_version');
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  const mac = bytes.subarray(bytes.length - MAC_BYTES);
  // Every key is tried, even after a match: the time taken says nothing about which one matched.
  let signed = false;
  for (const key of keys) {
    if (key.length >= MIN_CALLBACK_KEY_CHARS && timingSafeEqual(macOf(payload, key), mac)) signed = true;
  }
  if (!signed) return refused('bad_signature');
  const claims = claimsOf(payload);
  return claims ? { ok: true, claims } : refused('malformed');
}

function macOf(payload: Buffer, key: string): Buffer {
  return createHmac('sha256', key).update(LABEL).update(payload).digest();
}

/** The claims in a payload whose MAC held: its lengths must still add up exactly (a payload only seal made). */
function claimsOf(payload: Buffer): CallbackClaims | undefined {
  const scheduledFor = payload.readUIntBE(1, 6);
  const attempt = payload.readUInt16BE(7);
  const tenantLength = payload.readUInt8(9);
  const jobLengthAt = 10 + tenantLength;
  if (jobLengthAt >= payload.length) return undefined;
  const jobLength = payload.readUInt8(jobLengthAt);
  if (jobLengthAt + 1 + jobLength !== payload.length) return undefined;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    return {
      tenantId: decoder.decode(payload.subarray(10, jobLengthAt)),
      jobId: decoder.decode(payload.subarray(jobLengthAt + 1)),
      scheduledFor,
      attempt,
    };
  } catch {
    return undefined;
  }
}

const refused = (refusal: CallbackTokenRefusal): OpenedCallbackToken => ({ ok: false, refusal });
