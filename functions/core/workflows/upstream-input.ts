/**
 * The request body of a task with `input: "upstream"`:
 *
 *   { "body": <the task's own body>, "upstream": { "<key>": { "status", "httpStatus", "output" | "responseExcerpt" } } }
 *
 * one entry per dependency, in the order the task lists them. `output` is what an asynchronous
 * task reported as its result; a task without one contributes the excerpt of its response that
 * the run kept.
 *
 * Bounded: the body is at most MAX_REQUEST_BODY_BYTES (256 KiB, the largest request the API
 * accepts, so no call Chronos makes carries more than a client could have sent, and the body
 * fits a run item with room to spare). A hundred dependencies with 4 KiB excerpts, or one large
 * output, could pass it: then the largest payloads are left out first (ties: the later
 * dependency), each marked `"omitted": true` with its status and HTTP status kept, until the body
 * fits. When even the own body with the bare statuses does not fit, there is no body to send.
 */
import { MAX_REQUEST_BODY_BYTES } from '../limits.ts';
import type { Target } from '../model.ts';
import type { TaskStatus } from './model.ts';

/** What a dependency's last run left for its dependents. */
export interface UpstreamResult {
  status: TaskStatus;
  httpStatus?: number;
  /** An asynchronous task's reported result (any JSON value). */
  output?: unknown;
  responseExcerpt?: string;
}

export type UpstreamBody =
  | {
      ok: true;
      /** The JSON text to send. */
      body: string;
      /** Dependencies whose output or excerpt was left out to stay within the bound. */
      omitted: string[];
    }
  | { ok: false; reason: string };

/**
 * The task's own body as the value under `body`: the parsed JSON of a JSON body (the API stores
 * JSON bodies serialized, with a JSON content type), the text of any other body, null without one.
 */
export function ownBodyValue(target: Pick<Target, 'body' | 'headers'>): unknown {
  if (target.body === undefined) return null;
  const contentType = Object.entries(target.headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  if (contentType === undefined || !/^application\/([\w.+-]*\+)?json\b/i.test(contentType.trim())) return target.body;
  try {
    return JSON.parse(target.body);
  } catch {
    return target.body;
  }
}

/**
 * The upstream body from the task's own body value and its dependencies' results (in dependsOn
 * order), at most `maxBytes` of UTF-8. A value JSON cannot carry (a BigInt, a cycle) counts as
 * left out for an output, and as no body at all for the task's own.
 */
export function upstreamBody(
  ownBody: unknown,
  upstream: readonly { key: string; result: UpstreamResult }[],
  maxBytes: number = MAX_REQUEST_BODY_BYTES,
): UpstreamBody {
  const own = jsonOf(ownBody === undefined ? null : ownBody);
  if (own === undefined) return { ok: false, reason: "the task's own body is not JSON-serializable" };
  // A key listed twice keeps its last result, as the object it becomes would.
  const entries = [...new Map(upstream.map(({ key, result }) => [key, result])).entries()].map(([key, result]) => {
    const bare = bareEntry(result);
    const full = fullEntry(result, bare);
    return { key, bare: jsonOf(bare) as string, full, hasPayload: 'omitted' in bare, omitted: full === undefined };
  });
  const text = () =>
    `{"body":${own},"upstream":{${entries
      .map((e) => `${JSON.stringify(e.key)}:${e.omitted ? e.bare : e.full}`)
      .join(',')}}}`;
  let size = Buffer.byteLength(text());
  const largestFirst = entries
    .map((entry, index) => ({ entry, index, saves: bytes(entry.full) - Buffer.byteLength(entry.bare) }))
    .filter(({ entry }) => !entry.omitted)
    .sort((a, b) => b.saves - a.saves || b.index - a.index);
  for (const { entry, saves } of largestFirst) {
    if (size <= maxBytes) break;
    entry.omitted = true;
    size -= saves;
  }
  if (size > maxBytes)
    return { ok: false, reason: `the task's own body and its dependencies' statuses exceed ${maxBytes} bytes` };
  const omitted = entries.filter((e) => e.omitted && e.hasPayload).map((e) => e.key);
  return { ok: true, body: text(), omitted };
}

/** `{ status, httpStatus }`, plus `omitted: true` when the result had a payload to leave out. */
function bareEntry(result: UpstreamResult): Record<string, unknown> {
  const hasPayload = result.output !== undefined || result.responseExcerpt !== undefined;
  return {
    status: result.status,
    ...(result.httpStatus === undefined ? {} : { httpStatus: result.httpStatus }),
    ...(hasPayload ? { omitted: true } : {}),
  };
}

/** The entry with its payload, as JSON text; undefined when it has none or it cannot be serialized. */
function fullEntry(result: UpstreamResult, bare: Record<string, unknown>): string | undefined {
  const { omitted: _, ...head } = bare;
  if (result.output !== undefined) return jsonOf({ ...head, output: result.output });
  if (result.responseExcerpt !== undefined) return jsonOf({ ...head, responseExcerpt: result.responseExcerpt });
  return undefined;
}

function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

const bytes = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text));
