/**
 * Which headers a tenant may set on its target. Refused: invalid names, control characters (header
 * injection), characters fetch cannot send, hop-by-hop headers (they describe the connection, not
 * the request, and can smuggle requests past proxies), headers Chronos sets itself, and sizes that
 * common servers reject (nginx and Apache cap a header line near 8 KiB, Node's server all headers
 * at 16 KiB; Chronos adds its own headers on top).
 */
import type { FieldProblem } from './errors.ts';

/** Largest `name` + `value` of one header, in bytes. */
export const MAX_HEADER_BYTES = 4096;
/** Largest sum of `name` + `value` over all of a target's headers, in bytes. */
export const MAX_HEADERS_TOTAL_BYTES = 8192;

/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000a-\u001f\u007f]/;
/** fetch sends header values as bytes: anything past Latin-1 throws at call time (controls are caught above). */
const BEYOND_LATIN1 = /[^\t\u0020-\u00ff]/;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);
/** Set by Chronos on every call (Chronos-* covers Chronos-Run-Id), with the Standard Webhooks signature headers. */
const RESERVED = new Set(['idempotency-key', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);

function problemOf(name: string, value: string, bytes: number, seen: Set<string>): string | undefined {
  const lower = name.toLowerCase();
  if (!HEADER_NAME.test(name)) return 'is not a valid header name';
  if (CONTROL_CHARACTERS.test(value)) return 'must not contain control characters';
  if (BEYOND_LATIN1.test(value)) return 'must contain only ISO-8859-1 characters';
  if (HOP_BY_HOP.has(lower) || lower.startsWith('proxy-'))
    return 'is a hop-by-hop header that Chronos does not forward';
  if (RESERVED.has(lower) || lower.startsWith('chronos-')) return 'is set by Chronos on every call';
  if (seen.has(lower)) return 'is given twice (header names are case-insensitive)';
  if (bytes > MAX_HEADER_BYTES) return `is larger than ${MAX_HEADER_BYTES} bytes (name and value)`;
  return undefined;
}

/** Checks a target's headers; pushes one problem per refused header and returns the accepted ones. */
export function checkHeaders(headers: Record<string, string>, problems: FieldProblem[]): Record<string, string> {
  const accepted: Record<string, string> = {};
  const seen = new Set<string>();
  let total = 0;
  for (const [name, value] of Object.entries(headers)) {
    const bytes = Buffer.byteLength(name) + Buffer.byteLength(value);
    total += bytes;
    const reason = problemOf(name, value, bytes, seen);
    seen.add(name.toLowerCase());
    if (reason) problems.push({ field: `target.headers.${name}`, reason });
    else accepted[name] = value;
  }
  if (total > MAX_HEADERS_TOTAL_BYTES)
    problems.push({ field: 'target.headers', reason: `are larger than ${MAX_HEADERS_TOTAL_BYTES} bytes in all` });
  return accepted;
}
