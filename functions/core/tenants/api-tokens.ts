/**
 * API tokens: 32 random bytes, shown once when issued and stored only as their SHA-256. The
 * visible prefix identifies a token in listings without revealing it.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Every token starts with this, so a leaked one is recognisable by secret scanners. */
export const TOKEN_PREFIX = 'chronos_';

/** Characters of the token shown in listings (`chronos_AbCdEfGh`). */
const VISIBLE_CHARACTERS = TOKEN_PREFIX.length + 8;

/** A new token: `chronos_` + 43 base64url characters (256 bits). */
export function newApiToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Hex SHA-256 of a token: what is stored and what the authorizer looks up. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The part of a token safe to show again: enough to tell tokens apart, far too little to use. */
export function visiblePrefixOf(token: string): string {
  return token.slice(0, VISIBLE_CHARACTERS);
}

/** Bearer credentials as RFC 6750 allows them; anything else is malformed (and gets the same 401). */
const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{16,512})$/;

/** The token of an `Authorization: Bearer <token>` value, or undefined when it is missing or malformed. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  return BEARER.exec(authorization ?? '')?.[1];
}
