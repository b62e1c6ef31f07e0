/**
 * Serializes a value a worker sent (a checkpoint, an output) within a byte budget, without ever
 * throwing. A request body is parsed JSON, but this module is typed on `unknown` and must stay
 * total: JSON.stringify recurses (a body nested thousands deep overflows the stack: a 500 caused
 * by a client) and throws on cycles and BigInt. So the value is first walked with a budget of
 * nodes and depth, and serialized only when the walk fits.
 *
 * The serialized text is what is stored (a string attribute: DynamoDB maps refuse nesting past 32
 * levels and empty-string keys of older items, a string holds any JSON) and what the size bound
 * measures, in UTF-8 bytes, as the issue's "≤ 16 KB serialized".
 */
import { createHash } from 'node:crypto';

/** Deepest nesting accepted: well beyond any checkpoint or output meant as data, far from the stack limit. */
export const MAX_JSON_DEPTH = 64;

export type BoundedJson = { ok: true; json: string; bytes: number } | { ok: false; reason: string };

/** `value` as JSON text when it is a JSON value of at most `maxBytes` UTF-8 bytes serialized. */
export function boundedJson(value: unknown, maxBytes: number): BoundedJson {
  // Every node costs at least one byte serialized, so more nodes than bytes is too large already.
  let json: string | undefined;
  try {
    const walk = fitsBudget(value, maxBytes + 1);
    if (walk !== 'fits') return { ok: false, reason: walk };
    json = JSON.stringify(value);
  } catch {
    // A getter or proxy that throws, a toJSON that does: no JSON value a request body can hold.
    return { ok: false, reason: 'must be a JSON value' };
  }
  if (json === undefined) return { ok: false, reason: 'must be a JSON value' };
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) return { ok: false, reason: `must be at most ${maxBytes} bytes as JSON (it is ${bytes})` };
  return { ok: true, json, bytes };
}

/** Walks `value` iteratively, giving up past `nodes` nodes or MAX_JSON_DEPTH levels (cycles hit one of them). */
function fitsBudget(value: unknown, nodes: number): 'fits' | string {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  let seen = 0;
  while (stack.length > 0) {
    const { value: node, depth } = stack.pop() as { value: unknown; depth: number };
    if (++seen > nodes) return 'is too large';
    if (depth > MAX_JSON_DEPTH) return `must be nested at most ${MAX_JSON_DEPTH} levels deep`;
    if (typeof node === 'bigint' || typeof node === 'function' || typeof node === 'symbol')
      return 'must be a JSON value';
    if (node === null || typeof node !== 'object') continue;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return 'fits';
}

/**
 * Hex SHA-256 of `value` serialized with object keys sorted: equal for two bodies that differ only
 * in key order. For values boundedJson accepted (its depth bound keeps the recursion shallow).
 */
export function canonicalDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Object.entries(value)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}
