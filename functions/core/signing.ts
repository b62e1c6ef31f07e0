/**
 * Signed calls: every call Chronos makes carries
 *   Chronos-Timestamp: <unix seconds>
 *   Chronos-Signature: v1=<hex HMAC-SHA256 with the current secret>[,v1=<hex with the next secret>]
 * over `<timestamp>\n<METHOD>\n<URL as new URL(url).href>\n<body or empty>`. A target accepts the
 * call when any v1 signature matches its secret and the timestamp is recent, so a tenant's secret
 * can rotate without a gap: Chronos signs with both while a next secret is configured.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'Chronos-Timestamp';
export const SIGNATURE_HEADER = 'Chronos-Signature';
/** How far a target should let a timestamp be from its own clock, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** A tenant's signing secrets: calls are signed with `current`, and with `next` too while it is set. */
export interface SigningKeySet {
  current: string;
  next?: string;
}

/** Where signing secrets come from. Keyed by tenant so that per-tenant secrets (stored encrypted) fit in. */
export interface SigningKeys {
  keysFor(tenantId: string): Promise<SigningKeySet>;
}

/** The same secrets for every tenant. */
export function fixedSigningKeys(keys: SigningKeySet): SigningKeys {
  return { keysFor: async () => keys };
}

/** The parts of a request the signature covers. */
export interface SignedRequest {
  method: string;
  url: string;
  body?: string;
}

/** The exact bytes that are signed. */
export function canonicalString(timestampSeconds: number, request: SignedRequest): string {
  return `${timestampSeconds}\n${request.method.toUpperCase()}\n${new URL(request.url).href}\n${request.body ?? ''}`;
}

/** Hex HMAC-SHA256 of the canonical string. */
export function signatureOf(secret: string, timestampSeconds: number, request: SignedRequest): string {
  return createHmac('sha256', secret).update(canonicalString(timestampSeconds, request)).digest('hex');
}

/** The Chronos-Timestamp and Chronos-Signature headers of a call made at `nowMs`. */
export function signatureHeaders(request: SignedRequest, keys: SigningKeySet, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  const secrets = keys.next ? [keys.current, keys.next] : [keys.current];
  return {
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: secrets.map((secret) => `v1=${signatureOf(secret, timestamp, request)}`).join(','),
  };
}

/** What a target checks: a v1 signature made with `secret`, and a timestamp within the tolerance. */
export function verifySignature(
  headers: { timestamp: string | undefined; signature: string | undefined },
  request: SignedRequest,
  secret: string,
  nowMs: number,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!/^\d+$/.test(headers.timestamp ?? '') || Math.abs(nowMs / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureOf(secret, timestamp, request));
  return (headers.signature ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const given = Buffer.from(part.slice(3));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}
