/**
 * EventBridge's schedule rule, locally: invokes the scanner every `intervalMs` with a
 * `ScheduledEvent`. Invocations never overlap (a slow scan delays the next tick instead), a failed
 * scan is logged and the schedule goes on.
 */
import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';
import { invokeLambda, type LambdaHandler } from './lambda-context.ts';

export type ScannerHandler = LambdaHandler<ScheduledEvent, unknown>;

export interface ScannerTimerOptions {
  handler: ScannerHandler;
  /** Time between the starts of two scans; 0 or less starts no timer (runNow() still works). */
  intervalMs: number;
  functionName?: string;
  timeoutSeconds?: number;
  region?: string;
  log?: (message: string, error?: unknown) => void;
}

export interface RunningScannerTimer {
  /** Runs one scan right after any scan in progress and resolves with its result (rejects on failure). */
  runNow(): Promise<unknown>;
  /** Stops the schedule and waits for a scan in progress. */
  stop(): Promise<void>;
}

const ACCOUNT_ID = '000000000000';

/** Builds the event EventBridge sends for a scheduled rule firing at `time`. */
export function scheduledEvent(time: Date, region: string, ruleName: string): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: ACCOUNT_ID,
    time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:${ACCOUNT_ID}:rule/${ruleName}`],
    detail: {},
  };
}

/** Starts the schedule; the first scan runs after one interval, as a rate() rule would. */
export function startScannerTimer(options: ScannerTimerOptions): RunningScannerTimer {
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));
  const functionName = options.functionName ?? 'scanner';
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  // Every scan chains onto the previous one, so timer ticks and runNow() calls never overlap.
  let last: Promise<unknown> = Promise.resolve();

  function scanOnce(): Promise<unknown> {
    const next = last
      .catch(() => undefined)
      .then(() =>
        invokeLambda(options.handler, scheduledEvent(new Date(), region, `${functionName}-schedule`), {
          functionName,
          timeoutSeconds: options.timeoutSeconds ?? 50,
          region,
        }),
      );
    last = next;
    return next;
  }

  function schedule(delayMs: number): void {
    if (stopped || options.intervalMs <= 0) return;
    timer = setTimeout(async () => {
      const startedAt = Date.now();
      try {
        await scanOnce();
      } catch (error) {
        log(`${functionName} failed; the next scan runs on schedule`, error);
      }
      schedule(Math.max(0, options.intervalMs - (Date.now() - startedAt)));
    }, delayMs);
  }
  schedule(options.intervalMs);

  return {
    runNow: scanOnce,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await last.catch(() => undefined);
    },
  };
}
