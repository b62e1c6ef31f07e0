/**
 * What a target answered, as a run outcome every later stage can store and compute with. A target
 * (or the network in front of it) may send anything: a status no client expects, a Retry-After of
 * 1e300, an error message of megabytes. Each value is bounded here — clamped or left out, with a
 * note in the run's `error` saying so — and nothing here throws: the outcome of a call that was
 * made must always be recordable.
 */
import type { HttpResult, RunOutcome } from '../ports.ts';
import { MAX_RETRY_AFTER_SECONDS } from '../retry-policy.ts';

/** Longest `error` kept on a run (characters): a reason, not a dump. */
export const MAX_ERROR_CHARS = 1_024;
/** Longest call worth recording as such: a day, far beyond any timeout. */
const MAX_DURATION_MS = 86_400_000;

/** Maps an HTTP result to the run's terminal outcome (without the retry decision), every field bounded. */
export function outcomeOf(result: HttpResult, completedAt: number): RunOutcome {
  const notes = [...(Array.isArray(result.notes) ? result.notes : [])];
  const timing = timingOf(result, completedAt);
  if (result.kind === 'error') {
    return {
      ...timing,
      status: result.errorType === 'timeout' ? 'TIMED_OUT' : 'FAILED',
      errorType: result.errorType,
      error: withNotes(textOf(result.message), notes),
    };
  }
  const responseExcerpt = typeof result.bodyExcerpt === 'string' ? wellFormed(result.bodyExcerpt) : '';
  const status = result.status;
  if (!Number.isInteger(status) || status < 100 || status > 999) {
    // Not an HTTP status at all: a broken answer, treated like a server failure (retryable).
    return {
      ...timing,
      status: 'FAILED',
      responseExcerpt,
      errorType: 'http_5xx',
      error: withNotes(`target answered an invalid HTTP status (${String(status).slice(0, 20)})`, notes),
    };
  }
  if (status >= 200 && status < 300) {
    const note = notes.length > 0 ? { error: withNotes('', notes) } : {};
    return { ...timing, status: 'SUCCEEDED', httpStatus: status, responseExcerpt, ...note };
  }
  const retryAfterSeconds = boundedRetryAfter(result.retryAfterSeconds, notes);
  return {
    ...timing,
    status: 'FAILED',
    httpStatus: status,
    responseExcerpt,
    errorType: status >= 500 ? 'http_5xx' : 'http_4xx',
    error: withNotes(`target answered HTTP ${status}`, notes),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  };
}

/** Start and duration as safe integers: the call's own when sane, otherwise derived from `completedAt`. */
function timingOf(result: HttpResult, completedAt: number) {
  const durationMs =
    Number.isFinite(result.durationMs) && result.durationMs >= 0
      ? Math.min(Math.round(result.durationMs), MAX_DURATION_MS)
      : 0;
  const startedAt = Number.isSafeInteger(result.startedAt) ? result.startedAt : completedAt - durationMs;
  return { startedAt, durationMs, completedAt };
}

function boundedRetryAfter(seconds: number | undefined, notes: string[]): number | undefined {
  if (seconds === undefined) return undefined;
  if (!Number.isFinite(seconds) || seconds < 0) {
    notes.push(`Retry-After ${String(seconds).slice(0, 20)} ignored`);
    return undefined;
  }
  if (seconds > MAX_RETRY_AFTER_SECONDS) {
    notes.push(`Retry-After ${String(seconds).slice(0, 20)} clamped to ${MAX_RETRY_AFTER_SECONDS} s`);
    return MAX_RETRY_AFTER_SECONDS;
  }
  return Math.ceil(seconds);
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

/** Lone surrogates replaced (U+FFFD): a string the store can encode as UTF-8. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** `message` with the notes appended, cut to MAX_ERROR_CHARS (the cut is marked). */
function withNotes(message: string, notes: string[]): string {
  const full = [message, ...notes].filter((part) => part !== '').join('; ');
  return wellFormed(truncate(full, MAX_ERROR_CHARS));
}

/** Cuts `text` to `max` characters, never inside a surrogate pair, marking the cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}
