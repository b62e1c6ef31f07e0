/** Why the guarded fetch refused to make (or to continue) a call. */

/** The target, a redirect hop or an address its name resolves to is one Chronos never calls. */
export class BlockedTargetError extends Error {
  readonly code = 'CHRONOS_BLOCKED_TARGET';
  constructor(
    readonly target: string,
    readonly reason: string,
  ) {
    super(`refused to call ${target}: ${reason}`);
    this.name = 'BlockedTargetError';
  }
}

/** The target redirected more often than allowed, or to a Location that is not a URL. */
export class RedirectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedirectError';
  }
}
