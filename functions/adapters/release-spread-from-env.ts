/**
 * The dispatch messages' early release (core/release-spread.ts) in a function's environment: what
 * the CDK stack and the local runtime set (releaseSpreadEnvironment), and what the dispatcher reads.
 */
import { NO_SPREAD, type ReleaseSpreadOptions } from '#core/release-spread';
import { ENV, intEnv, optionalEnv } from './environment.ts';

/** The variables for `spread`; none when it is unset (released in the second before). */
export function releaseSpreadEnvironment(spread: ReleaseSpreadOptions | undefined): Record<string, string> {
  if (!spread) return {};
  return {
    [ENV.dispatchLeadMs]: String(spread.baseLeadMs),
    ...(Number.isFinite(spread.readyPerSecond) ? { [ENV.dispatchReadyPerSecond]: String(spread.readyPerSecond) } : {}),
    [ENV.dispatchMaxLeadMs]: String(spread.maxLeadMs),
  };
}

/** DISPATCH_LEAD_MS turns early release on (0 is a lead too); unset keeps the deployed default. */
export function releaseSpreadFromEnv(): ReleaseSpreadOptions {
  if ((optionalEnv(ENV.dispatchLeadMs) ?? '') === '') return NO_SPREAD;
  const baseLeadMs = intEnv(ENV.dispatchLeadMs, 0, 0);
  return {
    baseLeadMs,
    readyPerSecond: intEnv(ENV.dispatchReadyPerSecond, Number.POSITIVE_INFINITY),
    maxLeadMs: intEnv(ENV.dispatchMaxLeadMs, baseLeadMs, 0),
  };
}
