/** Quota refusals; the API maps both to 429 (see handlers/api/quota-errors.ts). */

/** Which bucket ran dry: job creations (POST /v1/jobs) or runs created outside the schedule. */
export type RateLimitedSubject = 'jobs' | 'runs';

/** Too many requests in too short a time: retry after `retryAfterSeconds`. */
export class RateLimitedError extends Error {
  constructor(
    public readonly retryAfterSeconds: number,
    public readonly subject: RateLimitedSubject = 'jobs',
  ) {
    super(`too many requests; retry after ${retryAfterSeconds} s`);
    this.name = 'RateLimitedError';
  }
}

/** The tenant holds as much as its quota allows (e.g. active jobs); waiting alone may not help. */
export class QuotaExceededError extends Error {
  constructor(
    public readonly quota: string,
    message: string,
  ) {
    super(message);
    this.name = 'QuotaExceededError';
  }
}
