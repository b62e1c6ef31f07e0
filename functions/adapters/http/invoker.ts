/**
 * Calls a job's target with undici's `request`, bounded by the job's timeout through an
 * AbortSignal that covers the whole exchange, headers and the body excerpt alike. Calls go through
 * guardedRequest: a target (or redirect hop) that points where Chronos never calls ends as
 * `blocked_target` without a request being sent.
 */
import type { ErrorType } from '#core/model';
import type { HttpInvoker, HttpRequest, HttpResult } from '#core/ports';
import { readRetryAfter } from '#core/retry-policy';
import { type OutboundRules, STRICT_OUTBOUND_RULES } from '#core/url-guard';
import { CallsGoingOut } from './calls-going-out.ts';
import { readDecodedExcerpt } from './decoded-excerpt.ts';
import { guardedAgent, type Resolver } from './guarded-lookup.ts';
import { guardedRequest, headerOf } from './guarded-request.ts';
import { BlockedTargetError, RedirectError } from './outbound-errors.ts';
import { withRequestSent } from './request-sent.ts';

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Classifies a failed call: a refused target, a broken redirect, our own timeout, or the network. */
export function classifyCallError(error: unknown): { errorType: ErrorType; message: string } {
  if (error instanceof BlockedTargetError) return { errorType: 'blocked_target', message: error.message };
  if (error instanceof RedirectError) return { errorType: 'invalid_target', message: error.message };
  // undici's own errors carry their code; a wrapped one (a socket's) carries it on its cause.
  const err = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return { errorType: 'timeout', message: 'target did not answer within the timeout' };
  }
  const failure = err?.cause?.code ? err.cause : err;
  const code = failure?.code;
  if (code && CONNECTION_CODES.has(code))
    return { errorType: 'connection', message: `${code}: ${failure?.message ?? ''}`.trim() };
  return { errorType: 'connection', message: failure?.message ?? String(error) };
}

export interface InvokerOptions {
  /** Default: STRICT_OUTBOUND_RULES (no loopback). */
  rules?: OutboundRules;
  /** DNS for target names (default: the system resolver); tests inject their own. */
  resolve?: Resolver;
  maxRedirects?: number;
}

export class HttpTargetInvoker implements HttpInvoker {
  private readonly rules: OutboundRules;
  private readonly dispatcher;
  private readonly goingOut = new CallsGoingOut();

  constructor(
    private readonly excerptBytes: number,
    private readonly options: InvokerOptions = {},
  ) {
    this.rules = options.rules ?? STRICT_OUTBOUND_RULES;
    this.dispatcher = guardedAgent(this.rules, options.resolve);
  }

  async invoke(request: HttpRequest): Promise<HttpResult> {
    const startedAt = Date.now();
    const signal = AbortSignal.timeout(request.timeoutMs);
    const sent = this.goingOut.start(request);
    try {
      const { response, notes } = await guardedRequest(
        request.url,
        {
          method: request.method,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
          signal,
        },
        {
          rules: this.rules,
          dispatcher: withRequestSent(this.dispatcher, sent),
          maxRedirects: this.options.maxRedirects,
        },
      );
      sent();
      const { excerpt: bodyExcerpt, note } = await readDecodedExcerpt(response, this.excerptBytes);
      if (note !== undefined) notes.push(note);
      // Bounded or ignored, never thrown: the target's header is the target's business.
      const retryAfter = readRetryAfter(headerOf(response.headers, 'retry-after'), Date.now());
      if (retryAfter.note !== undefined) notes.push(retryAfter.note);
      return {
        kind: 'response',
        status: response.statusCode,
        bodyExcerpt,
        durationMs: Date.now() - startedAt,
        startedAt,
        ...(retryAfter.seconds === undefined ? {} : { retryAfterSeconds: retryAfter.seconds }),
        ...(notes.length === 0 ? {} : { notes }),
      };
    } catch (error) {
      return { kind: 'error', ...classifyCallError(error), durationMs: Date.now() - startedAt, startedAt };
    } finally {
      sent();
    }
  }

  plan(request: HttpRequest, at: number): void {
    this.goingOut.plan(request, at);
  }

  untilCallsSent(maxWaitMs: number): Promise<void> {
    return this.goingOut.sent(maxWaitMs);
  }
}
