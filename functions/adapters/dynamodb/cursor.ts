/**
 * Pagination cursors are DynamoDB's LastEvaluatedKey, base64url-encoded. They are opaque to
 * clients; a malformed one is a client error, not a server error.
 */
import { ValidationError } from '#core/errors';

export function encodeCursor(key: Record<string, unknown> | undefined): string | undefined {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : undefined;
}

/** Decodes a cursor, accepting only objects whose keys are `allowed`. */
export function decodeCursor(
  cursor: string | undefined,
  allowed: readonly string[],
): Record<string, unknown> | undefined {
  if (cursor === undefined) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (key && typeof key === 'object' && !Array.isArray(key) && Object.keys(key).every((k) => allowed.includes(k))) {
      return key as Record<string, unknown>;
    }
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError([{ field: 'cursor', reason: 'is not a cursor this API returned' }]);
}
