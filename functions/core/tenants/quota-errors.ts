/** Quota refusals; the API maps both to 429 (see handlers/api/quota-errors.ts). */

/** Too many requests in too short a time: retry after `retryAfterSeconds`. */
export class RateLimitedError extends Error {
  constructor(public readonly retryAfterSeconds: number) {
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
