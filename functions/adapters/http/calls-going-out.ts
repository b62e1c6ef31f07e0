/**
 * Calls first, bookkeeping after. At a burst's due second one executor process has many calls to
 * send and, as the first answers come back, as many outcomes to write: each write is an AWS SDK
 * request (marshalling, signing: about twice a call's CPU) on the same event loop that still has
 * to start, connect and write the burst's other calls. Measured on the precision bench (1,000
 * calls due at once, one local executor process), a fifth of the calls reached the target half a
 * second later than the rest while the first outcomes were written.
 *
 * So the outcome of a call that came back waits, before its write, until the calls this process is
 * sending have gone out — written to their sockets, not answered: a slow target holds no one back.
 * Going out: a call planned (built, waiting for its time) for no later than `lookaheadMs` from now,
 * and a call started within the last `freshMs` whose request is not written yet (connecting). Never
 * a call planned or started after the wait began, never longer than the wait the caller allows
 * (the executor's bound: core/use-cases/execute-run.ts). A planned call that is never made
 * (stopped at its time) is forgotten `graceMs` after its time, when the next wait looks.
 */

export interface CallsGoingOutOptions {
  freshMs?: number;
  lookaheadMs?: number;
  graceMs?: number;
  now?: () => number;
}

export const CALLS_FIRST = { freshMs: 1_000, lookaheadMs: 100, graceMs: 1_000 } as const;

interface Call {
  /** When it is planned for, or, once started, when it started. */
  at: number;
  started: boolean;
  /** Resolves once its request is written, or it ends without being written. */
  gone: Promise<void>;
  markGone: () => void;
}

export class CallsGoingOut {
  private readonly calls = new Map<object, Call>();
  private readonly options: Required<Omit<CallsGoingOutOptions, 'now'>>;
  private readonly now: () => number;

  constructor(options: CallsGoingOutOptions = {}) {
    const { now = Date.now, ...bounds } = options;
    this.options = { ...CALLS_FIRST, ...bounds };
    this.now = now;
  }

  /** The call `key` is built and will be made at `at`. */
  plan(key: object, at: number): void {
    if (!this.calls.has(key)) this.calls.set(key, pending(at));
  }

  /**
   * The call `key` (planned or not) starts now. The function returned says its request is written
   * (or that it ended without being written); calling it again does nothing.
   */
  start(key: object): () => void {
    const call = this.calls.get(key) ?? pending(this.now());
    call.at = this.now();
    call.started = true;
    this.calls.set(key, call);
    return () => {
      if (this.calls.get(key) === call) this.calls.delete(key);
      call.markGone();
    };
  }

  /** Calls planned or not yet written. */
  get size(): number {
    return this.calls.size;
  }

  /** Resolves once the calls going out now (see above) are written, or after `maxWaitMs`. */
  async sent(maxWaitMs: number): Promise<void> {
    this.forgetUnmade();
    const now = this.now();
    const { freshMs, lookaheadMs } = this.options;
    const going = [...this.calls.values()]
      .filter((call) => (call.started ? call.at >= now - freshMs : call.at <= now + lookaheadMs))
      .map((call) => call.gone);
    if (going.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, maxWaitMs);
    });
    await Promise.race([Promise.all(going), bound]);
    clearTimeout(timer);
  }

  /** Planned calls whose time is `graceMs` past and that never started: they will not be made. */
  private forgetUnmade(): void {
    const before = this.now() - this.options.graceMs;
    for (const [key, call] of this.calls) {
      if (!call.started && call.at < before) {
        this.calls.delete(key);
        call.markGone();
      }
    }
  }
}

function pending(at: number): Call {
  let markGone = () => {};
  const gone = new Promise<void>((resolve) => {
    markGone = resolve;
  });
  return { at, started: false, gone, markGone };
}
