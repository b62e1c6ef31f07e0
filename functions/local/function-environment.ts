/**
 * The environment of the local functions: the variables CDK sets on the deployed functions
 * (names from functions/adapters/environment.ts) plus the standard AWS ones that point the SDK
 * at the emulators. All functions share one process here, so they share one environment.
 */

import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { releaseSpreadEnvironment } from '#adapters/release-spread-from-env';
import { quotaEnvironment } from '#adapters/tenant-quotas';
import { EXECUTOR_BATCH_SIZE } from '#core/limits';
import type { ReleaseSpreadOptions } from '#core/release-spread';
import type { TenantQuotas } from '#core/tenants/quotas';
import { LOCAL_CREDENTIALS, LOCAL_REGION, type LocalEndpoints } from './emulators/local-clients.ts';
import { MAX_CONCURRENCY_ENV } from './lambda-context.ts';
import type { ProvisionedResources } from './provision.ts';

export interface FunctionSettings {
  endpoints: LocalEndpoints;
  /** The local API's port, refused as a target with the emulators' (CHRONOS_LOCAL_PORTS). */
  apiPort?: number;
  /** More ports to refuse: those of another local Chronos sharing this process. */
  otherOwnPorts?: number[];
  resources: ProvisionedResources;
  /** The stage's default quotas (QUOTA_* variables). */
  quotas: TenantQuotas;
  /** Base64 32-byte key that seals secret headers instead of KMS (SECRETS_LOCAL_KEY). */
  secretsLocalKey: string;
  allowLoopbackTargets: boolean;
  /** Invocations that may run at once in this process (also the normal lane's executor poller's workers). */
  concurrency: number;
  /**
   * Executor workers of every lane together (EXECUTOR_MAX_CALLS_IN_FLIGHT = this × batch size);
   * unset: `concurrency`.
   */
  executorWorkers?: number;
  dueShardCount: number;
  scanHorizonSeconds: number;
  /** Unset ones leave the handlers' documented defaults. */
  runRetentionDays?: number;
  responseExcerptBytes?: number;
  leaseMarginSeconds?: number;
  sweepGraceSeconds?: number;
  notifyTimeoutSeconds?: number;
  notifyBackoffSeconds?: number;
  /** TARGET_DNS_SERVERS: name servers for target names; unset: the system's. */
  targetDnsServers?: readonly string[];
  /** Hex SHA-256 of the operator (admin scope) token; unset: no admin token works. */
  adminTokenSha256?: string;
  /** CALLBACK_BASE_URL: where async jobs' workers call back (the local API); unset: left as it is. */
  callbackBaseUrl?: string;
  /** DISPATCH_LEAD_MS, DISPATCH_READY_PER_SECOND, DISPATCH_MAX_LEAD_MS; unset: released in the second before. */
  releaseSpread?: ReleaseSpreadOptions;
}

/**
 * Ports of this machine that are Chronos' own: the local API's and each emulator's on the loopback
 * interface. A target there would reach Chronos' tables and queues, or its own API, so the URL
 * guard refuses them even with loopback allowed.
 */
export function localChronosPorts(
  settings: Pick<FunctionSettings, 'endpoints' | 'apiPort' | 'otherOwnPorts'>,
): number[] {
  const { dynamodb, sqs, cloudwatch } = settings.endpoints;
  const ports = [dynamodb, sqs, cloudwatch].flatMap((endpoint) => {
    if (endpoint === undefined) return [];
    const url = new URL(endpoint);
    return [url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port)];
  });
  const api = settings.apiPort === undefined ? [] : [settings.apiPort];
  return [...new Set([...api, ...ports, ...(settings.otherOwnPorts ?? [])])];
}

/** The variables, by name. */
export function functionEnvironment(settings: FunctionSettings): Record<string, string> {
  const optional = (name: string, value: number | undefined) => (value === undefined ? {} : { [name]: String(value) });
  return {
    AWS_REGION: LOCAL_REGION,
    AWS_DEFAULT_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: settings.endpoints.dynamodb,
    // DynamoDB Local serves the streams API on its own endpoint.
    AWS_ENDPOINT_URL_DYNAMODB_STREAMS: settings.endpoints.dynamodb,
    AWS_ENDPOINT_URL_SQS: settings.endpoints.sqs,
    ...(settings.endpoints.cloudwatch === undefined
      ? {}
      : { AWS_ENDPOINT_URL_CLOUDWATCH: settings.endpoints.cloudwatch }),
    // Many invocations share this process: tell Powertools to keep per-invocation state apart.
    [MAX_CONCURRENCY_ENV]: String(settings.concurrency),
    [ENV.jobsTable]: settings.resources.tables.jobs,
    [ENV.runsTable]: settings.resources.tables.runs,
    [ENV.workflowRunsTable]: settings.resources.tables.workflowRuns,
    [ENV.runsStreamArn]: settings.resources.runsStreamArn,
    // Each priority lane's dispatch queue, as CDK sets them on every function that sends runs.
    [ENV.dispatchQueueUrl]: settings.resources.queues.dispatch.url,
    [ENV.dispatchQueueUrlHigh]: settings.resources.queues.dispatchHigh.url,
    [ENV.dispatchQueueUrlLow]: settings.resources.queues.dispatchLow.url,
    [ENV.failureNoticeQueueUrl]: settings.resources.queues.notices.url,
    ...optional(ENV.notifyTimeoutSeconds, settings.notifyTimeoutSeconds),
    ...optional(ENV.notifyBackoffSeconds, settings.notifyBackoffSeconds),
    ...(settings.targetDnsServers?.length ? { [ENV.targetDnsServers]: settings.targetDnsServers.join(',') } : {}),
    // The executor pollers' workers (every lane's) × their batch size, as the CDK executor construct
    // sets it; per process (several local executor processes each bound only their own calls).
    [ENV.executorMaxCallsInFlight]: String((settings.executorWorkers ?? settings.concurrency) * EXECUTOR_BATCH_SIZE),
    [ENV.dueShardCount]: String(settings.dueShardCount),
    [ENV.scanHorizonSeconds]: String(settings.scanHorizonSeconds),
    ...optional(ENV.runRetentionDays, settings.runRetentionDays),
    ...optional(ENV.responseExcerptBytes, settings.responseExcerptBytes),
    ...optional(ENV.leaseMarginSeconds, settings.leaseMarginSeconds),
    ...optional(ENV.sweepGraceSeconds, settings.sweepGraceSeconds),
    ...releaseSpreadEnvironment(settings.releaseSpread),
    [ENV.tenantsTable]: settings.resources.tables.tenants,
    ...(settings.callbackBaseUrl === undefined ? {} : { [ENV.callbackBaseUrl]: settings.callbackBaseUrl }),
    ...quotaEnvironment(settings.quotas),
    [ENV.secretsLocalKey]: settings.secretsLocalKey,
    // Local targets run on this machine; a deployed stack refuses loopback unless configured.
    [ENV.allowLoopbackTargets]: String(settings.allowLoopbackTargets),
    [ENV.chronosLocalPorts]: localChronosPorts(settings).join(','),
    [OBSERVABILITY_ENV.metricsTable]: settings.resources.tables.metrics,
    [OBSERVABILITY_ENV.monitoredDispatchQueueUrl]: settings.resources.queues.dispatch.url,
    [OBSERVABILITY_ENV.monitoredDeadLetterQueueUrl]: settings.resources.queues.deadLetter.url,
    [OBSERVABILITY_ENV.monitoredDispatchQueueUrlHigh]: settings.resources.queues.dispatchHigh.url,
    [OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlHigh]: settings.resources.queues.deadLetterHigh.url,
    [OBSERVABILITY_ENV.monitoredDispatchQueueUrlLow]: settings.resources.queues.dispatchLow.url,
    [OBSERVABILITY_ENV.monitoredDeadLetterQueueUrlLow]: settings.resources.queues.deadLetterLow.url,
    [OBSERVABILITY_ENV.stage]: 'local',
    ...(settings.adminTokenSha256 === undefined
      ? {}
      : { [OBSERVABILITY_ENV.adminTokenSha256]: settings.adminTokenSha256 }),
    // No X-Ray daemon here (Powertools would stay off anyway outside Lambda: this makes it explicit),
    // and EMF metric lines would only clutter the console.
    POWERTOOLS_TRACE_ENABLED: 'false',
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
}

/** Sets the variables and returns a function that puts the previous values back. */
export function setEnvironment(variables: Record<string, string>): () => void {
  // AWS_SESSION_TOKEN or AWS_PROFILE from a developer's shell would override or confuse the fake keys.
  const cleared = ['AWS_SESSION_TOKEN', 'AWS_PROFILE'].filter((name) => process.env[name] !== undefined);
  const previous = Object.fromEntries([...Object.keys(variables), ...cleared].map((name) => [name, process.env[name]]));
  for (const name of cleared) delete process.env[name];
  Object.assign(process.env, variables);
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
