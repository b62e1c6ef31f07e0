/**
 * Requests made on a tenant's behalf, with undici's `request` (half the CPU of its `fetch`, and it
 * follows no redirect by itself): every URL, the first and each redirect hop, is checked (scheme,
 * literal addresses, reserved names) before it is requested, and every name is resolved
 * and checked as the socket connects (guarded-lookup.ts). Redirects are followed by hand, at most
 * `maxRedirects`, as fetch would follow them (303, and 301/302 after a POST, become a GET without
 * body), with two rules stricter than fetch's, because the next hop is chosen by whoever answers
 * the call, not by the tenant:
 *  - a redirect to another origin (scheme, host or port) carries nothing of the call: none of the
 *    headers it was given (the job's plain and secret headers, the signature, the idempotency key
 *    and run id — a signature that does not cover the URL would otherwise be replayable there) and
 *    no body. A hop that would have to keep the body (307/308, or 301/302 after anything but POST)
 *    is refused rather than sent empty. Once another origin was reached, nothing comes back, even
 *    on a redirect back to the first origin.
 *  - a redirect from https to http is refused: what was asked over TLS is never sent in clear.
 * Same-origin redirects keep the headers, as fetch does. A followed cross-origin hop is named in
 * the result's notes (recorded with the run), so a target that answers 401 there is explained.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, request } from 'undici';
import { checkTargetUrl, type OutboundRules } from '#core/url-guard';
import { BlockedTargetError, RedirectError } from './outbound-errors.ts';

export const DEFAULT_MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Describe a body, so they go when a redirect drops it. */
const BODY_HEADERS = ['content-type', 'content-encoding', 'content-language', 'content-location'];

export interface GuardedRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** What the target answered; its body must be read or destroyed. */
export type TargetAnswer = Dispatcher.ResponseData;

export interface GuardedResponse {
  response: TargetAnswer;
  /** What the redirects changed about the call, for the run's record. */
  notes: string[];
}

export interface GuardOptions {
  rules: OutboundRules;
  /** Must connect through guardedLookup (guardedAgent). */
  dispatcher: Dispatcher;
  maxRedirects?: number;
}

function refuseUnlessAllowed(url: URL, rules: OutboundRules): void {
  const check = checkTargetUrl(url, rules);
  if (!check.allowed) throw new BlockedTargetError(url.href, check.reason);
}

/**
 * Headers every request carries, on every hop, unless the call sets them: a name for Chronos
 * (firewalls and bot filters often refuse a request without one) and the `Accept` any client sends.
 */
export const DEFAULT_CALL_HEADERS: Readonly<Record<string, string>> = { 'user-agent': 'Chronos', accept: '*/*' };

/** What a body without a `Content-Type` is sent as: text, as fetch (and any browser) sends a string. */
export const DEFAULT_BODY_TYPE = 'text/plain;charset=UTF-8';

/** The call's headers over the defaults, whatever case a name was written in. */
function withDefaultHeaders(call: GuardedRequest): Record<string, string> {
  const given = new Set(Object.keys(call.headers).map((name) => name.toLowerCase()));
  const defaults = Object.entries({
    ...DEFAULT_CALL_HEADERS,
    ...(call.body === undefined ? {} : { 'content-type': DEFAULT_BODY_TYPE }),
  }).filter(([name]) => !given.has(name));
  return { ...Object.fromEntries(defaults), ...call.headers };
}

/** A header of the answer as one value: repeated ones joined as fetch's Headers.get joins them. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Closes an answer's body unread (and its connection); the abort it reports is expected, not an error. */
function discardBody(answer: TargetAnswer): void {
  answer.body.on('error', () => undefined).destroy();
}

/**
 * `answer`, or the signal's reason as soon as it aborts: undici's `request` sees an abort only
 * once its connection is made, and a name server that never answers would hold the call past its
 * timeout (the lookup's own timeout still ends the abandoned request).
 */
function untilAborted(answer: Promise<TargetAnswer>, signal: AbortSignal): Promise<TargetAnswer> {
  if (signal.aborted) {
    // undici rejects it too (it sees the abort before connecting); nobody waits for it either way.
    answer.then(discardBody, () => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        // Answered after the call was given up: nobody reads it.
        if (signal.aborted) discardBody(value);
        else resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

async function requestOnce(url: URL, call: GuardedRequest, dispatcher: Dispatcher): Promise<TargetAnswer> {
  try {
    const answer = request(url, {
      method: call.method as Dispatcher.HttpMethod,
      headers: withDefaultHeaders(call),
      ...(call.body === undefined ? {} : { body: call.body }),
      signal: call.signal,
      dispatcher,
    });
    return await untilAborted(answer, call.signal);
  } catch (error) {
    // The lookup refused the name: say so directly rather than as a generic network failure.
    const cause = (error as { cause?: unknown }).cause;
    throw cause instanceof BlockedTargetError ? cause : error;
  }
}

/** What fetch does to the method on a redirect: 303 (but HEAD), and 301/302 after a POST, become a GET. */
function becomesGet(status: number, method: string): boolean {
  return (status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST');
}

/** The request for the next hop, or a BlockedTargetError when the hop may not be followed. */
function nextHop(from: URL, to: URL, status: number, call: GuardedRequest): GuardedRequest {
  if (from.protocol === 'https:' && to.protocol === 'http:')
    throw new BlockedTargetError(
      to.href,
      `is a redirect from https (${from.origin}) to http, which would not be encrypted`,
    );
  const toGet = becomesGet(status, call.method);
  const { body, ...bodiless } = call;
  if (to.origin !== from.origin) {
    if (body !== undefined && !toGet)
      throw new BlockedTargetError(
        to.href,
        `is another origin than ${from.origin}, and a ${status} redirect of a ${call.method} would carry the body there`,
      );
    return { ...bodiless, method: toGet ? 'GET' : call.method, headers: {} };
  }
  if (!toGet) return call;
  const headers = Object.fromEntries(
    Object.entries(call.headers).filter(([name]) => !BODY_HEADERS.includes(name.toLowerCase())),
  );
  return { ...bodiless, method: 'GET', headers };
}

/** Calls `url` and follows its redirects, refusing any hop that points where Chronos never calls. */
export async function guardedRequest(
  url: string,
  first: GuardedRequest,
  options: GuardOptions,
): Promise<GuardedResponse> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new BlockedTargetError(url, 'is not a valid absolute URL');
  }
  refuseUnlessAllowed(current, options.rules);
  let call = first;
  const notes: string[] = [];
  for (let redirects = 0; ; redirects++) {
    const response = await requestOnce(current, call, options.dispatcher);
    const location = REDIRECT_STATUSES.has(response.statusCode) ? headerOf(response.headers, 'location') : null;
    if (location === null) return { response, notes };
    // Cut, not read: a redirect's body is nothing Chronos keeps, and a slow one must not hold the call.
    discardBody(response);
    if (redirects >= maxRedirects) throw new RedirectError(`more than ${maxRedirects} redirects (last to ${location})`);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new RedirectError(`redirect to an invalid location: ${location}`);
    }
    // Where the hop points first (a private address says more than a dropped header), then how it may go there.
    refuseUnlessAllowed(next, options.rules);
    call = nextHop(current, next, response.statusCode, call);
    if (next.origin !== current.origin && notes.length === 0)
      notes.push(
        `redirected to another origin (${next.origin}): followed without the job's headers, signature or body`,
      );
    current = next;
  }
}
