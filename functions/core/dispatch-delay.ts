import { MAX_SQS_DELAY_SECONDS } from './limits.ts';

/**
 * SQS DelaySeconds for a run due at `dueAt`. Rounded down, so the message is released at most a
 * second early and the executor waits out the sub-second rest: a call never starts before its due
 * time, and never a whole second late.
 */
export function dispatchDelaySeconds(dueAt: number, now: number): number {
  return Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.floor((dueAt - now) / 1000)));
}
