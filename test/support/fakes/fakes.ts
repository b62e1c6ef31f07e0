import type { FailureNotice, FailureNotices } from '#core/notifications/failure-notice';
import type {
  Clock,
  DispatchRequest,
  HttpInvoker,
  HttpRequest,
  HttpResult,
  IdGenerator,
  RunDispatcher,
} from '#core/ports';

/** Records what would have been sent to SQS. */
export class RecordingDispatcher implements RunDispatcher {
  readonly sent: DispatchRequest[] = [];
  async dispatch(messages: DispatchRequest[]): Promise<void> {
    this.sent.push(...messages);
  }
}

/** Records the failure notices that would have been queued for the notifier. */
export class RecordingNotices implements FailureNotices {
  readonly sent: FailureNotice[] = [];
  async send(notice: FailureNotice): Promise<void> {
    this.sent.push(notice);
  }
}

/** A clock that only moves when told to; sleeping jumps straight to the wake-up time. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(public current: number) {}
  now(): number {
    return this.current;
  }
  async sleepUntil(epochMs: number): Promise<void> {
    this.sleeps.push(epochMs);
    this.current = Math.max(this.current, epochMs);
  }
}

/** Answers every call with a fixed result and remembers the requests. */
export class ScriptedInvoker implements HttpInvoker {
  readonly requests: Array<HttpRequest & { at: number }> = [];
  constructor(
    private readonly clock: Clock,
    private readonly result: (request: HttpRequest) => Omit<HttpResult, 'startedAt'>,
  ) {}
  async invoke(request: HttpRequest): Promise<HttpResult> {
    const at = this.clock.now();
    this.requests.push({ ...request, at });
    return { ...this.result(request), startedAt: at } as HttpResult;
  }
}

/** Sequential ids that still look like ULIDs. */
export function sequentialIds(): IdGenerator {
  let n = 0;
  return { next: () => `01J${String(++n).padStart(23, '0')}` };
}
