/** The dispatch messages' early release (core/release-spread.ts) as the function's environment sets it. */
import { NO_SPREAD, type ReleaseSpreadOptions } from '#core/release-spread';
import { ENV, intEnv } from './environment.ts';

/** Unset variables keep the deployed default: released in the second before the due time. */
export function releaseSpreadFromEnv(): ReleaseSpreadOptions {
  const set = (name: string) => (process.env[name] ?? '') !== '';
  if (!set(ENV.dispatchLeadMs) && !set(ENV.dispatchReadyPerSecond) && !set(ENV.dispatchMaxLeadMs)) return NO_SPREAD;
  const baseLeadMs = set(ENV.dispatchLeadMs) ? intEnv(ENV.dispatchLeadMs, 1) : 0;
  return {
    baseLeadMs,
    readyPerSecond: intEnv(ENV.dispatchReadyPerSecond, Number.POSITIVE_INFINITY),
    maxLeadMs: intEnv(ENV.dispatchMaxLeadMs, baseLeadMs || 1),
  };
}
