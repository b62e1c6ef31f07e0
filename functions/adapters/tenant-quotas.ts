/** The stage's default quotas, from the QUOTA_* variables (CDK sets them from cdk.json). */
import { DEFAULT_QUOTAS, type TenantQuotas } from '#core/tenants/quotas';
import { ENV, intEnv } from './environment.ts';

/** Each quota from its variable, or the built-in default when the variable is unset. */
export function defaultQuotasFromEnv(): TenantQuotas {
  return {
    maxActiveJobs: intEnv(ENV.quotaMaxActiveJobs, DEFAULT_QUOTAS.maxActiveJobs),
    createsPerSecond: intEnv(ENV.quotaCreatesPerSecond, DEFAULT_QUOTAS.createsPerSecond),
    createBurst: intEnv(ENV.quotaCreateBurst, DEFAULT_QUOTAS.createBurst),
    triggersPerSecond: intEnv(ENV.quotaTriggersPerSecond, DEFAULT_QUOTAS.triggersPerSecond),
    triggerBurst: intEnv(ENV.quotaTriggerBurst, DEFAULT_QUOTAS.triggerBurst),
    minIntervalSeconds: intEnv(ENV.quotaMinIntervalSeconds, DEFAULT_QUOTAS.minIntervalSeconds),
    maxPayloadBytes: intEnv(ENV.quotaMaxPayloadBytes, DEFAULT_QUOTAS.maxPayloadBytes),
    maxConcurrentRuns: intEnv(ENV.quotaMaxConcurrentRuns, DEFAULT_QUOTAS.maxConcurrentRuns),
  };
}

/** Every QUOTA_* variable for `quotas`: what CDK and the local runtime set on the functions. */
export function quotaEnvironment(quotas: TenantQuotas): Record<string, string> {
  return {
    [ENV.quotaMaxActiveJobs]: String(quotas.maxActiveJobs),
    [ENV.quotaCreatesPerSecond]: String(quotas.createsPerSecond),
    [ENV.quotaCreateBurst]: String(quotas.createBurst),
    [ENV.quotaTriggersPerSecond]: String(quotas.triggersPerSecond),
    [ENV.quotaTriggerBurst]: String(quotas.triggerBurst),
    [ENV.quotaMinIntervalSeconds]: String(quotas.minIntervalSeconds),
    [ENV.quotaMaxPayloadBytes]: String(quotas.maxPayloadBytes),
    [ENV.quotaMaxConcurrentRuns]: String(quotas.maxConcurrentRuns),
  };
}
