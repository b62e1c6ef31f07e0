/**
 * Cursors made from real ones: a cursor the API returned, decoded (base64url JSON of DynamoDB's
 * LastEvaluatedKey) and changed in one place — a value's type swapped, a string made long, non-ASCII
 * or another partition's, a sort key moved past the 13-digit layout, an instant beyond the range, a
 * key removed or added, a string widened to the most bytes a cursor can carry — then encoded again (sometimes in standard base64, padded).
 */
import fc from 'fast-check';
import { numberNear, unicodeText } from './fuzz-edges.ts';

export type Key = Record<string, unknown>;

export function decodeCursor(cursor: string): Key {
  return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Key;
}

/** A value of the wrong type, or of the right type where no key of this listing can be. */
const replacement = fc.oneof(
  numberNear(0, 9_999_999_999_999),
  fc.constantFrom(
    null,
    true,
    [],
    {},
    { S: 'x' },
    '',
    '0000000000000#000',
    '0000000000000#001',
    '9999999999999#999',
    '10000000000000#001',
    '7258118400000#001',
    '-000000000001#001',
    '0000000000001#1000',
    'x'.repeat(1025),
    'é'.repeat(700),
    '😀'.repeat(300),
  ),
  unicodeText,
  fc.string({ maxLength: 30 }),
);

/** What to do to a real key: one of its values changed, its key set changed, or it left as it is. */
export const keyMutation = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), value: replacement }),
  fc.record({
    kind: fc.constant('prefix' as const),
    pick: fc.nat(),
    prefix: fc.constantFrom('other-tenant#', 'dev-tenant#', '#', '../', ' '),
  }),
  fc.record({ kind: fc.constant('suffix' as const), pick: fc.nat(), suffix: fc.oneof(unicodeText, fc.constant('#')) }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('add' as const),
    name: fc.constantFrom('pk', 'sk', 'jobId', 'x', '__proto__'),
    value: replacement,
  }),
  fc.record({ kind: fc.constant('nudge' as const), pick: fc.nat(), by: fc.constantFrom(-1, 1, 1e13, -1e13, 0.5) }),
  fc.constant({ kind: 'none' as const }),
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('widen' as const),
      pick: fc.nat(),
      char: fc.constantFrom('x', 'é', 'ü', '€', '😀', '\ud800', '\udfff'),
      bytes: fc.integer({ min: 900, max: 1500 }),
    }),
  },
);
export type KeyMutation = typeof keyMutation extends fc.Arbitrary<infer T> ? T : never;

/** `key` with `mutation` applied (a copy). */
export function mutateKey(key: Key, mutation: KeyMutation): Key {
  const copy: Key = { ...key };
  const names = Object.keys(copy);
  const name = 'pick' in mutation ? names[mutation.pick % Math.max(names.length, 1)] : undefined;
  switch (mutation.kind) {
    case 'replace':
      if (name !== undefined) copy[name] = mutation.value;
      break;
    case 'prefix':
      if (name !== undefined) copy[name] = `${mutation.prefix}${String(copy[name])}`;
      break;
    case 'suffix':
      if (name !== undefined) copy[name] = `${String(copy[name])}${mutation.suffix}`;
      break;
    case 'remove':
      if (name !== undefined) delete copy[name];
      break;
    case 'add':
      Object.defineProperty(copy, mutation.name, { value: mutation.value, enumerable: true, writable: true });
      break;
    case 'nudge': {
      const value = name === undefined ? undefined : copy[name];
      if (typeof value === 'number') copy[name as string] = value + mutation.by;
      else if (typeof value === 'string' && /^\d{13}#\d{3}$/.test(value)) {
        const [at, attempt] = value.split('#');
        copy[name as string] = `${String(Number(at) + mutation.by).padStart(13, '0')}#${attempt}`;
      }
      break;
    }
    case 'widen':
      // A key string about `bytes` of UTF-8 long (as much as a cursor can carry), in characters of 1 to 4 bytes.
      if (name !== undefined)
        copy[name] = mutation.char.repeat(Math.ceil(mutation.bytes / Buffer.byteLength(mutation.char)));
      break;
    case 'none':
      break;
  }
  return copy;
}

/** How the key travels: base64url as issued, or padded standard base64, or with junk around it. */
export const encoding = fc.constantFrom('base64url', 'base64', 'trailing=', 'truncated');

export function encodeKey(key: Key, how: string): string {
  const json = Buffer.from(JSON.stringify(key));
  switch (how) {
    case 'base64':
      return json.toString('base64');
    case 'trailing=':
      return `${json.toString('base64url')}=`;
    case 'truncated':
      return json.toString('base64url').slice(0, -3);
    default:
      return json.toString('base64url');
  }
}

/**
 * Why DynamoDB itself (not DynamoDB Local, which checks neither) would refuse `key` as an
 * ExclusiveStartKey: a key string over 1024 bytes of UTF-8 (the sort key limit; Chronos' partition
 * keys are far shorter) or not well-formed Unicode (a lone surrogate has no UTF-8 form). A cursor
 * the API accepts must hold neither, or the deployed API answers it with a 500.
 */
export function keyProblemsForDynamoDb(key: Key): string[] {
  return Object.entries(key).flatMap(([name, value]) => {
    if (typeof value !== 'string') return [];
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > 1024) return [`${name} is ${bytes} bytes of UTF-8, over DynamoDB's 1024-byte key limit`];
    if (Buffer.from(value, 'utf8').toString('utf8') !== value) return [`${name} is not well-formed Unicode`];
    return [];
  });
}

/** The key inside a cursor, or undefined when it is not base64url JSON of an object. */
export function keyInside(cursor: string | undefined): Key | undefined {
  if (cursor === undefined) return undefined;
  try {
    const key = decodeCursor(cursor);
    return key && typeof key === 'object' && !Array.isArray(key) ? key : undefined;
  } catch {
    return undefined;
  }
}
