/**
 * Pagination cursors are DynamoDB's LastEvaluatedKey, base64url-encoded. They are opaque to
 * clients, but a client can send anything back: a cursor is checked against the listing it is
 * used for before it reaches DynamoDB (which answers a key of the wrong shape, type or range with a
 * ValidationException, a 500 here) — its length, every key name and type, the partition it
 * belongs to (the caller's tenant or job) and any further rule of the listing. Whatever fails is a
 * 400 naming `cursor`, never an empty page that would hide the mistake.
 */
import { isRepresentableInstant } from '#core/bounds';
import { ValidationError } from '#core/errors';

/** Longest cursor accepted (before decoding): far above any key this API issues. */
export const MAX_CURSOR_LENGTH = 2048;
/**
 * Longest string key value accepted in a cursor, in bytes of UTF-8: DynamoDB refuses a start key
 * whose sort key is longer (a ValidationException, a 500 here). DynamoDB Local does not check it,
 * so only this bound keeps `é` x 700 (700 characters, 1,400 bytes) from failing in AWS.
 */
export const MAX_KEY_VALUE_BYTES = 1024;

/** The type of one key attribute: a string, or a number that is an instant Chronos stores. */
export type CursorKeyType = 'string' | 'instant';

/** What a listing's cursor must look like. */
export interface CursorSpec {
  /** Every attribute of the key, and its type: no more, no fewer. */
  keys: Readonly<Record<string, CursorKeyType>>;
  /** Attributes that must hold exactly these values: the partition the caller may read. */
  pinned?: Readonly<Record<string, string>>;
  /** A further rule of the listing (e.g. a sort key inside the query's key range). */
  accepts?: (key: Record<string, string | number>) => boolean;
}

export function encodeCursor(key: Record<string, unknown> | undefined): string | undefined {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : undefined;
}

const invalid = (reason: string) => new ValidationError([{ field: 'cursor', reason }]);

/** Decodes a cursor and checks it against `spec`; undefined when absent, ValidationError (`cursor`) when invalid. */
export function decodeCursor(
  cursor: string | undefined,
  spec: CursorSpec,
): Record<string, string | number> | undefined {
  if (cursor === undefined) return undefined;
  if (cursor.length > MAX_CURSOR_LENGTH) throw invalid(`must be at most ${MAX_CURSOR_LENGTH} characters`);
  const key = parsed(cursor);
  const names = Object.keys(spec.keys);
  const shapeOk =
    key !== undefined &&
    Object.keys(key).length === names.length &&
    names.every((name) => Object.hasOwn(key, name) && hasType(key[name], spec.keys[name] as CursorKeyType));
  if (!key || !shapeOk) throw invalid('is not a cursor this API returned');
  const typed = key as Record<string, string | number>;
  for (const [name, value] of Object.entries(spec.pinned ?? {})) {
    if (typed[name] !== value) throw invalid('belongs to another listing');
  }
  if (spec.accepts && !spec.accepts(typed)) throw invalid('does not belong to this query');
  return typed;
}

function parsed(cursor: string): Record<string, unknown> | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function hasType(value: unknown, type: CursorKeyType): boolean {
  if (type === 'instant') return isRepresentableInstant(value);
  return typeof value === 'string' && value.length >= 1 && isStorableKeyString(value);
}

/**
 * At most MAX_KEY_VALUE_BYTES of UTF-8, and well-formed Unicode: a lone surrogate (which JSON can
 * carry as `\ud800`) has no UTF-8 form, and no key this API issues holds one.
 */
function isStorableKeyString(value: string): boolean {
  return value.isWellFormed() && Buffer.byteLength(value, 'utf8') <= MAX_KEY_VALUE_BYTES;
}
