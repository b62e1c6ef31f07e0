/**
 * The operator's admin token: its SHA-256 in ADMIN_TOKEN_SHA256 (optional; unset, no token is the
 * admin's). Checked in memory, never against a table, so the authorizer and the public health
 * route can tell the operator apart at no cost.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { bearerTokenOf } from '#core/tenants/api-tokens';

/** True when `token` is the configured admin token (compared in constant time). */
export function isAdminToken(token: string | undefined): boolean {
  const expectedSha256Hex = process.env[OBSERVABILITY_ENV.adminTokenSha256];
  if (!token || !expectedSha256Hex) return false;
  const actual = createHash('sha256').update(token).digest();
  const expected = Buffer.from(expectedSha256Hex, 'hex');
  return expected.length === actual.length && timingSafeEqual(actual, expected);
}

/** True when an `Authorization` header value carries the admin token as a bearer token. */
export function carriesAdminToken(authorization: string | undefined): boolean {
  return isAdminToken(bearerTokenOf(authorization));
}
