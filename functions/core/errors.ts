/** Errors the core raises; handlers map each to one HTTP status. */

export interface FieldProblem {
  /** Dotted path into the request body, e.g. `target.url`; `body` for the body as a whole. */
  field: string;
  reason: string;
}

/** The request is malformed; every problem found is listed. Maps to 400. */
export class ValidationError extends Error {
  constructor(public readonly details: FieldProblem[]) {
    super(details.map((d) => `${d.field}: ${d.reason}`).join('; '));
    this.name = 'ValidationError';
  }
}

/** The resource does not exist for this tenant (also for another tenant's ids). Maps to 404. */
export class NotFoundError extends Error {
  constructor(what: string) {
    super(`${what} not found`);
    this.name = 'NotFoundError';
  }
}

/** A concurrent change won; the caller should re-read and retry. Maps to 409. */
export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

/**
 * A job with this id exists already: a create with an Idempotency-Key lost to another request
 * with the same key (use-cases/create-job-once.ts answers that job instead). Maps to 409.
 */
export class JobExistsError extends ConflictError {
  constructor(jobId: string) {
    super(`job ${jobId} exists already`);
    this.name = 'JobExistsError';
  }
}

/**
 * An Idempotency-Key sent again with another request body: the key names one request, so the
 * earlier answer cannot stand for this one, and a new job would defeat the key. Maps to 422
 * (draft-ietf-httpapi-idempotency-key-header).
 */
export class IdempotencyKeyReusedError extends Error {
  constructor() {
    super('this Idempotency-Key was used with another request body in the last 24 hours');
    this.name = 'IdempotencyKeyReusedError';
  }
}

/**
 * The store refused a run outcome as such (an item too large, a value it cannot represent): writing
 * the same outcome again cannot succeed. Never reaches a handler's answer: the executor records a
 * reduced outcome instead.
 */
export class OutcomeRejectedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutcomeRejectedError';
  }
}

/**
 * A callback or run cancel the run's state refuses (core/use-cases/async/): `RUN_ENDED` and
 * `RUN_NOT_STARTED` and `RUN_NOT_CANCELLABLE` map to 409, `RUN_NOT_FOUND` to 404,
 * `INVALID_CALLBACK_TOKEN` (forged, tampered, ill-formed) to 401.
 */
export class RunStateRefusal extends Error {
  constructor(
    public readonly code:
      | 'RUN_ENDED'
      | 'RUN_NOT_STARTED'
      | 'RUN_NOT_FOUND'
      | 'RUN_NOT_CANCELLABLE'
      | 'INVALID_CALLBACK_TOKEN',
    message: string,
  ) {
    super(message);
    this.name = 'RunStateRefusal';
  }

  get status(): 401 | 404 | 409 {
    if (this.code === 'INVALID_CALLBACK_TOKEN') return 401;
    return this.code === 'RUN_NOT_FOUND' ? 404 : 409;
  }
}
