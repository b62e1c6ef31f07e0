/**
 * fetch for calls made on a tenant's behalf: every URL, the first and each redirect hop, is checked
 * (scheme, literal addresses, reserved names) before it is requested, and every name is resolved
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
import { type Dispatcher, fetch, type Response } from 'undici';
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

export interface GuardedResponse {
  response: Response;
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

async function fetchOnce(url: URL, request: GuardedRequest, dispatcher: Dispatcher): Promise<Response> {
  try {
    return await fetch(url, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      signal: request.signal,
      redirect: 'manual',
      dispatcher,
    });
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
function nextHop(from: URL, to: URL, status: number, request: GuardedRequest): GuardedRequest {
  if (from.protocol === 'https:' && to.protocol === 'http:')
    throw new BlockedTargetError(
      to.href,
      `is a redirect from https (${from.origin}) to http, which would not be encrypted`,
    );
  const toGet = becomesGet(status, request.method);
  const { body, ...bodiless } = request;
  if (to.origin !== from.origin) {
    if (body !== undefined && !toGet)
      throw new BlockedTargetError(
        to.href,
        `is another origin than ${from.origin}, and a ${status} redirect of a ${request.method} would carry the body there`,
      );
    return { ...bodiless, method: toGet ? 'GET' : request.method, headers: {} };
  }
  if (!toGet) return request;
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([name]) => !BODY_HEADERS.includes(name.toLowerCase())),
  );
  return { ...bodiless, method: 'GET', headers };
}

/** Calls `url` and follows its redirects, refusing any hop that points where Chronos never calls. */
export async function guardedFetch(
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
  let request = first;
  const notes: string[] = [];
  for (let redirects = 0; ; redirects++) {
    const response = await fetchOnce(current, request, options.dispatcher);
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null;
    if (location === null) return { response, notes };
    await response.body?.cancel().catch(() => undefined);
    if (redirects >= maxRedirects) throw new RedirectError(`more than ${maxRedirects} redirects (last to ${location})`);
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new RedirectError(`redirect to an invalid location: ${location}`);
    }
    // Where the hop points first (a private address says more than a dropped header), then how it may go there.
    refuseUnlessAllowed(next, options.rules);
    request = nextHop(current, next, response.status, request);
    if (next.origin !== current.origin && notes.length === 0)
      notes.push(
        `redirected to another origin (${next.origin}): followed without the job's headers, signature or body`,
      );
    current = next;
  }
}
