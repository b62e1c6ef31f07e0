/**
 * Stage configuration of the Chronos CDK app. Values come from cdk.json context: the stage is
 * picked with `-c chronos:stage=<name>`, its block under `chronos:stages` overrides the defaults,
 * and a few per-deployment values (interim auth, alarm email) can be overridden with
 * `-c chronos:<key>=<value>` so that secrets-ish values stay out of the repository.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DEFAULT_SLA_SECONDS } from '#core/run-timing';
import { DEFAULT_QUOTAS, QUOTA_KEYS, type TenantQuotas } from '#core/tenants/quotas';

export interface ApiThrottle {
  /** Steady-state requests per second for the whole stage. */
  rateLimit: number;
  /** Largest burst of concurrent requests. */
  burstLimit: number;
}

/**
 * The WAF web ACL on the API stage (lib/constructs/api-waf.ts). Limits count requests over WAF's
 * five-minute window; WAF's smallest limit is 10.
 */
export interface WafConfig {
  /** False leaves the stage without a web ACL (a dev stage may save its cost); on by default. */
  enabled: boolean;
  /** Requests per five minutes per `Authorization` header value (each token its own budget). */
  rateLimitPer5MinPerToken: number;
  /** Requests per five minutes per source IP, for requests without an `Authorization` header. */
  rateLimitPer5MinPerIp: number;
  /**
   * Requests per five minutes per source IP, whatever their header: a ceiling for one address that
   * sends a new made-up token with each request (each value would otherwise have a budget of its
   * own, and cost an authorizer call). At least rateLimitPer5MinPerToken, so one address using one
   * token is never limited by it; addresses shared by several callers (NAT) need room above that.
   */
  rateLimitPer5MinPerIpTotal: number;
}

/**
 * The web console (lib/constructs/console-site.ts): the built `console/` workspace in a private S3
 * bucket behind a CloudFront distribution that also routes `/v1/*` to this stage's API.
 */
export interface ConsoleConfig {
  /** False deploys no bucket and no distribution (the API stays reachable at its own URL); on by default. */
  enabled: boolean;
  /**
   * A host name of your own for the console (console.example.com), served with the ACM certificate
   * `certificateArn` (in us-east-1, as CloudFront requires) at TLS 1.2 or later. Both or neither;
   * unset: the distribution's own *.cloudfront.net name. The DNS record (a CNAME or alias to the
   * distribution) is yours to create.
   */
  domainName?: string;
  certificateArn?: string;
}

/** Where each CloudWatch alarm (lib/constructs/observability.ts) fires; see the `alarms` table in docs/deploy.md. */
export interface AlarmThresholds {
  /** Dead letters visible in the dispatch DLQ above which it alarms (0: any dead letter). */
  deadLetterMessages: number;
  /** Age (s) of the oldest dispatch message above which it alarms (2 of 3 minutes). */
  oldestMessageSeconds: number;
  /** Start-lag p99 (ms) above which it alarms (2 of 3 five-minute periods). */
  startLagP99Ms: number;
  /** Minutes without a finished scanner pass before the heartbeat alarm fires. */
  scannerSilenceMinutes: number;
  /** Percent of a function's invocations failing within 5 minutes above which it alarms. */
  functionErrorRatePercent: number;
  /** Completion stream iterator age (ms) above which it alarms (2 of 3 minutes). */
  streamIteratorAgeMs: number;
}

export interface ChronosConfig {
  /** Lower-case stage name, part of every stack name (`Chronos-<stage>-Stateful`). */
  stage: string;
  /** Number of partitions of the due-index; the scanner queries each one every minute. */
  dueShardCount: number;
  /** How far ahead (seconds) the scanner materializes occurrences; must exceed the 60 s schedule. */
  scanHorizonSeconds: number;
  /** Runs expire (DynamoDB TTL) this many days after completion. */
  runRetentionDays: number;
  /** Days of CloudWatch Logs retention for functions and API access logs. */
  logRetentionDays: number;
  /**
   * Largest number of executor instances the `normal` lane's dispatch queue may drive at once (SQS
   * maximum concurrency, >= 2). Each priority lane has its own (functions/core/priority.ts), so
   * no lane can take another's executors.
   */
  executorMaxConcurrency: number;
  /** The same for the `high` lane's queue (>= 2; default 5): capacity bulk work cannot take. */
  executorHighMaxConcurrency: number;
  /** The same for the `low` lane's queue (>= 2; default 3): bulk work waits only for its own executors. */
  executorLowMaxConcurrency: number;
  /**
   * Concurrency reserved for the executor (unset: none, it shares the account pool). When set it
   * must cover the three lanes' maximum concurrency together, or Lambda throttles the queues'
   * pollers and messages burn receives towards the dead-letter queues.
   */
  executorReservedConcurrency?: number;
  /** Receives of a dispatch message before it moves to the dead-letter queue. */
  dispatchMaxReceiveCount: number;
  /** Concurrent batches per runs-table stream shard for the completion handler (1..10). */
  completionParallelizationFactor: number;
  /** Bytes of a target's response body kept on the run. */
  responseExcerptBytes: number;
  /** Extra lease time beyond the HTTP timeout before another executor may take a run over. */
  leaseMarginSeconds: number;
  /** Stage-wide API Gateway throttling. */
  apiThrottle: ApiThrottle;
  /** WAF on the API stage; a stage block may set any subset (`waf: { enabled: false }`). */
  waf: WafConfig;
  /** The web console on CloudFront; a stage block may set `console: { enabled: false }`. */
  console: ConsoleConfig;
  /** Origins allowed by CORS; empty means no CORS preflight is configured at all. */
  corsAllowOrigins: string[];
  /**
   * Other host names that reach this stage's API (a custom domain, a CDN in front of it): refused
   * as targets, as the API Gateway host itself is (CHRONOS_API_HOSTS).
   */
  apiHostAliases: string[];
  /** True keeps tables, queues and logs when the stack is deleted (and turns on deletion protection). */
  retainData: boolean;
  /** Alarm notifications (lib/constructs/observability.ts) go to this address; unset: the topic has no subscriber. */
  alarmEmail?: string;
  /**
   * An existing SNS topic (ARN) every alarm notifies instead of a topic of the stack's own (an
   * on-call system's topic, shared by several stacks); alarmEmail, if also set, subscribes to it.
   */
  alarmTopicArn?: string;
  /**
   * Early release of dispatch messages (functions/core/release-spread.ts): unset, runs are
   * released in the second before they are due. Set, every run is released `baseLeadMs` early and
   * a burst spread at `readyPerSecond` runs a second, at most `maxLeadMs` early, so each is claimed
   * before its second; each executor invocation then waits (and is billed) for its runs' due time.
   */
  earlyRelease?: { baseLeadMs: number; readyPerSecond: number; maxLeadMs: number };
  /**
   * API Gateway detailed (per-method) CloudWatch metrics: billed per metric and read by no alarm
   * or widget, so off unless a stage wants them for an investigation.
   */
  apiDetailedMetrics: boolean;
  /**
   * Runtime and architecture of every function. nodejs24.x on arm64 on AWS; LocalStack's Lambda
   * (npm run deploy:local) needs nodejs22.x on x86_64 (`-c chronos:localstack=true` sets both).
   */
  lambdaRuntime: LambdaRuntimeName;
  lambdaArchitecture: LambdaArchitectureName;
  /** Alarm thresholds; a stage block may set any subset (`alarms: { oldestMessageSeconds: 30 }`). */
  alarms: AlarmThresholds;
  /** Adds a per-tenant copy of the run metrics (one CloudWatch series per tenant and metric: mind the cost). */
  metricsTenantDimension: boolean;
  /** Hex SHA-256 of the operator token (admin scope of the monitoring API); unset: no admin token. */
  adminTokenSha256?: string;
  /**
   * Default per-tenant quotas (functions/core/tenants/quotas.ts); a tenant may have its own
   * (`npm run admin -- tenants create <name> --quota key=value`). maxConcurrentRuns must stay
   * below executorMaxConcurrency, so that one tenant at its cap leaves the `normal` lane's
   * executors to the others (see requireQuotas for the other lanes).
   */
  quotas: TenantQuotas;
}

export const LAMBDA_RUNTIMES = ['nodejs24.x', 'nodejs22.x'] as const;
export type LambdaRuntimeName = (typeof LAMBDA_RUNTIMES)[number];
export const LAMBDA_ARCHITECTURES = ['arm64', 'x86_64'] as const;
export type LambdaArchitectureName = (typeof LAMBDA_ARCHITECTURES)[number];

/**
 * What `-c chronos:localstack=true` (npm run deploy:local) changes: LocalStack's community Lambda
 * runs neither nodejs24.x nor arm64 images everywhere, and it has neither WAFv2 nor CloudFront
 * (paid features): no web ACL and no console distribution (`npm start` serves the console locally).
 */
export const LOCALSTACK_OVERRIDES = {
  lambdaRuntime: 'nodejs22.x',
  lambdaArchitecture: 'x86_64',
  waf: { enabled: false },
  console: { enabled: false },
} as const;

/** A DNS host name of at least two labels, without scheme, port or trailing dot. */
const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i;

/** Raised for any invalid configuration value, naming the key and what is expected. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const DEFAULT_CONFIG: Omit<ChronosConfig, 'stage'> = {
  dueShardCount: 16,
  scanHorizonSeconds: 90,
  runRetentionDays: 30,
  logRetentionDays: 30,
  executorMaxConcurrency: 10,
  executorHighMaxConcurrency: 5,
  executorLowMaxConcurrency: 3,
  dispatchMaxReceiveCount: 5,
  completionParallelizationFactor: 1,
  responseExcerptBytes: 4096,
  leaseMarginSeconds: 30,
  apiThrottle: { rateLimit: 50, burstLimit: 100 },
  // 3 000 per five minutes is 10 requests a second sustained per token; unauthenticated callers
  // (health probes) get 1 a second per address.
  waf: {
    enabled: true,
    rateLimitPer5MinPerToken: 3_000,
    rateLimitPer5MinPerIp: 300,
    rateLimitPer5MinPerIpTotal: 15_000,
  },
  console: { enabled: true },
  corsAllowOrigins: [],
  apiHostAliases: [],
  retainData: false,
  // The values the alarms were built with before they became configurable: the default run SLA
  // for the queue age and the start lag.
  alarms: {
    deadLetterMessages: 0,
    oldestMessageSeconds: DEFAULT_SLA_SECONDS,
    startLagP99Ms: DEFAULT_SLA_SECONDS * 1000,
    scannerSilenceMinutes: 3,
    functionErrorRatePercent: 5,
    streamIteratorAgeMs: 60_000,
  },
  metricsTenantDimension: false,
  apiDetailedMetrics: false,
  lambdaRuntime: 'nodejs24.x',
  lambdaArchitecture: 'arm64',
  quotas: DEFAULT_QUOTAS,
};

/** Context keys that may override the chosen stage block one by one (`-c chronos:<key>=...`). */
const SINGLE_VALUE_OVERRIDES = ['alarmEmail', 'alarmTopicArn', 'adminTokenSha256'] as const;

/** Reads context values by key; `node.tryGetContext` of any construct satisfies it. */
export type ContextReader = (key: string) => unknown;

/** Builds and validates the configuration of the stage selected in context; throws ConfigError. */
export function loadConfig(readContext: ContextReader): ChronosConfig {
  const stage = readContext('chronos:stage') ?? 'dev';
  if (typeof stage !== 'string') throw new ConfigError('chronos:stage must be a string');
  const stages = readContext('chronos:stages') ?? {};
  if (!isRecord(stages)) throw new ConfigError('chronos:stages must be an object of stage blocks');
  const block = stages[stage];
  if (!isRecord(block)) {
    throw new ConfigError(`Unknown stage "${stage}": add a block for it under chronos:stages in cdk.json`);
  }
  const overrides: Record<string, unknown> = {};
  for (const key of SINGLE_VALUE_OVERRIDES) {
    const value = readContext(`chronos:${key}`);
    if (value !== undefined) overrides[key] = value;
  }
  const localstack = readContext('chronos:localstack');
  // The CLI passes context values as strings (`-c chronos:localstack=true`).
  const onLocalStack = localstack === true || localstack === 'true';
  if (localstack !== undefined && !onLocalStack && localstack !== false && localstack !== 'false') {
    throw new ConfigError('chronos:localstack must be true or false');
  }
  const merged: Record<string, unknown> = { ...DEFAULT_CONFIG, ...block, ...overrides, stage };
  if (onLocalStack) {
    const waf = isRecord(merged.waf) ? merged.waf : {};
    const consoleBlock = isRecord(merged.console) ? merged.console : {};
    Object.assign(merged, LOCALSTACK_OVERRIDES, {
      waf: { ...waf, ...LOCALSTACK_OVERRIDES.waf },
      console: { ...consoleBlock, ...LOCALSTACK_OVERRIDES.console },
    });
  }
  return validateConfig(merged);
}

/** Checks every key of a raw configuration object and returns it typed; throws ConfigError. */
export function validateConfig(raw: Record<string, unknown>): ChronosConfig {
  const known = new Set<string>([
    ...Object.keys(DEFAULT_CONFIG),
    'stage',
    'alarmEmail',
    'alarmTopicArn',
    'earlyRelease',
    'executorReservedConcurrency',
    'adminTokenSha256',
  ]);
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) throw new ConfigError(`Unknown configuration key "${key}"`);
  }
  const stage = requireString(raw, 'stage');
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
    throw new ConfigError(`stage must be lower-case letters, digits or dashes (max 20), got "${stage}"`);
  }
  const scanHorizonSeconds = requireInt(raw, 'scanHorizonSeconds', 61, 900);
  const apiThrottle = raw.apiThrottle;
  if (!isRecord(apiThrottle)) throw new ConfigError('apiThrottle must be an object { rateLimit, burstLimit }');
  const corsAllowOrigins = raw.corsAllowOrigins;
  if (!Array.isArray(corsAllowOrigins) || !corsAllowOrigins.every((o) => typeof o === 'string' && o !== '')) {
    throw new ConfigError('corsAllowOrigins must be an array of origin strings');
  }
  const apiHostAliases = raw.apiHostAliases ?? [];
  if (
    !Array.isArray(apiHostAliases) ||
    !apiHostAliases.every((host) => typeof host === 'string' && HOST_NAME.test(host))
  ) {
    throw new ConfigError('apiHostAliases must be an array of host names (api.example.com), without scheme or port');
  }
  const alarmEmail = raw.alarmEmail;
  if (alarmEmail !== undefined && (typeof alarmEmail !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(alarmEmail))) {
    throw new ConfigError(`alarmEmail must be an email address, got "${String(alarmEmail)}"`);
  }
  const alarmTopicArn = raw.alarmTopicArn;
  if (
    alarmTopicArn !== undefined &&
    (typeof alarmTopicArn !== 'string' ||
      !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(alarmTopicArn))
  ) {
    throw new ConfigError(`alarmTopicArn must be an SNS topic ARN, got "${String(alarmTopicArn)}"`);
  }
  if (typeof raw.apiDetailedMetrics !== 'boolean') throw new ConfigError('apiDetailedMetrics must be true or false');
  const lambdaRuntime = requireOneOf(raw, 'lambdaRuntime', LAMBDA_RUNTIMES);
  const lambdaArchitecture = requireOneOf(raw, 'lambdaArchitecture', LAMBDA_ARCHITECTURES);
  const adminTokenSha256 = raw.adminTokenSha256;
  if (
    adminTokenSha256 !== undefined &&
    (typeof adminTokenSha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(adminTokenSha256))
  ) {
    throw new ConfigError('adminTokenSha256 must be the 64 hex digits of a SHA-256 digest');
  }
  if (typeof raw.metricsTenantDimension !== 'boolean')
    throw new ConfigError('metricsTenantDimension must be true or false');
  const retainData = raw.retainData;
  if (typeof retainData !== 'boolean') throw new ConfigError('retainData must be true or false');
  const executorMaxConcurrency = requireInt(raw, 'executorMaxConcurrency', 2, 1000);
  // 2 is the smallest maximum concurrency an SQS event source takes.
  const executorHighMaxConcurrency = requireInt(raw, 'executorHighMaxConcurrency', 2, 1000);
  const executorLowMaxConcurrency = requireInt(raw, 'executorLowMaxConcurrency', 2, 1000);
  const executorReservedConcurrency = requireReservedConcurrency(
    raw,
    executorHighMaxConcurrency + executorMaxConcurrency + executorLowMaxConcurrency,
  );
  return {
    stage,
    dueShardCount: requireInt(raw, 'dueShardCount', 1, 256),
    scanHorizonSeconds,
    runRetentionDays: requireInt(raw, 'runRetentionDays', 1, 3650),
    logRetentionDays: requireLogRetention(raw),
    executorMaxConcurrency,
    executorHighMaxConcurrency,
    executorLowMaxConcurrency,
    ...(executorReservedConcurrency === undefined ? {} : { executorReservedConcurrency }),
    dispatchMaxReceiveCount: requireInt(raw, 'dispatchMaxReceiveCount', 1, 1000),
    completionParallelizationFactor: requireInt(raw, 'completionParallelizationFactor', 1, 10),
    responseExcerptBytes: requireInt(raw, 'responseExcerptBytes', 1, 64 * 1024),
    leaseMarginSeconds: requireInt(raw, 'leaseMarginSeconds', 1, 900),
    apiThrottle: {
      rateLimit: requireInt(apiThrottle, 'rateLimit', 1, 10_000, 'apiThrottle.'),
      burstLimit: requireInt(apiThrottle, 'burstLimit', 1, 5_000, 'apiThrottle.'),
    },
    waf: requireWaf(raw),
    console: requireConsole(raw),
    corsAllowOrigins: corsAllowOrigins as string[],
    apiHostAliases: (apiHostAliases as string[]).map((host) => host.toLowerCase()),
    retainData,
    ...(alarmEmail === undefined ? {} : { alarmEmail: alarmEmail as string }),
    ...(alarmTopicArn === undefined ? {} : { alarmTopicArn: alarmTopicArn as string }),
    ...(raw.earlyRelease === undefined ? {} : { earlyRelease: requireEarlyRelease(raw.earlyRelease) }),
    apiDetailedMetrics: raw.apiDetailedMetrics,
    lambdaRuntime,
    lambdaArchitecture,
    alarms: requireAlarmThresholds(raw),
    metricsTenantDimension: raw.metricsTenantDimension,
    ...(adminTokenSha256 === undefined ? {} : { adminTokenSha256: (adminTokenSha256 as string).toLowerCase() }),
    quotas: requireQuotas(raw, executorMaxConcurrency),
  };
}

/**
 * The executor's reserved concurrency, when set: every lane's event source drives the same
 * function, so the reservation must cover their maximum concurrency together.
 */
function requireReservedConcurrency(raw: Record<string, unknown>, lanesTogether: number): number | undefined {
  if (raw.executorReservedConcurrency === undefined) return undefined;
  const reserved = requireInt(raw, 'executorReservedConcurrency', 1, 1000);
  if (reserved < lanesTogether) {
    throw new ConfigError(
      `executorReservedConcurrency (${reserved}) must be at least the three lanes' maximum concurrency together: executorHighMaxConcurrency + executorMaxConcurrency + executorLowMaxConcurrency = ${lanesTogether}`,
    );
  }
  return reserved;
}

/**
 * `quotas`: any subset of the quota keys over DEFAULT_QUOTAS, each a positive integer.
 *
 * maxConcurrentRuns is checked against the `normal` lane's executors (executorMaxConcurrency),
 * where a tenant's runs go unless its jobs ask otherwise: a tenant at its cap holds at most that
 * many of the lane's executors, and the rest keep serving the others. Not against the lanes'
 * sum: a tenant's calls may all be in one lane, and the executors of the other lanes do not run
 * that lane's runs. Not against every lane either: the high and low lanes are small by design
 * (5 and 3 by default, below the built-in default cap of 5), so a tenant whose jobs are all
 * high (or all low) may hold its lane's every executor while its calls last (docs/deploy.md).
 */
function requireQuotas(raw: Record<string, unknown>, executorMaxConcurrency: number): TenantQuotas {
  const given = raw.quotas ?? {};
  if (!isRecord(given)) throw new ConfigError('quotas must be an object of quota values');
  for (const key of Object.keys(given)) {
    if (!(QUOTA_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(`Unknown quota "${key}" (known: ${QUOTA_KEYS.join(', ')})`);
    }
  }
  const merged: Record<string, unknown> = { ...DEFAULT_QUOTAS, ...given };
  const quotas = Object.fromEntries(
    QUOTA_KEYS.map((key) => [key, requireInt(merged, key, 1, 1_000_000_000, 'quotas.')]),
  ) as unknown as TenantQuotas;
  if (quotas.maxConcurrentRuns >= executorMaxConcurrency) {
    throw new ConfigError(
      `quotas.maxConcurrentRuns (${quotas.maxConcurrentRuns}) must be below executorMaxConcurrency (${executorMaxConcurrency}): one tenant at its cap must leave executors to the others`,
    );
  }
  return quotas;
}

/** `waf`: any subset of its keys over the defaults; limits within what WAF accepts. */
function requireWaf(raw: Record<string, unknown>): WafConfig {
  const given = raw.waf ?? {};
  if (!isRecord(given)) throw new ConfigError('waf must be an object of WAF settings (enabled and rate limits)');
  const defaults = DEFAULT_CONFIG.waf;
  for (const key of Object.keys(given)) {
    if (!(key in defaults))
      throw new ConfigError(`Unknown waf key "${key}" (known: ${Object.keys(defaults).join(', ')})`);
  }
  const merged: Record<string, unknown> = { ...defaults, ...given };
  if (typeof merged.enabled !== 'boolean') throw new ConfigError('waf.enabled must be true or false');
  const rateLimitPer5MinPerToken = requireInt(merged, 'rateLimitPer5MinPerToken', 10, 2_000_000_000, 'waf.');
  return {
    enabled: merged.enabled,
    rateLimitPer5MinPerToken,
    rateLimitPer5MinPerIp: requireInt(merged, 'rateLimitPer5MinPerIp', 10, 2_000_000_000, 'waf.'),
    rateLimitPer5MinPerIpTotal: requireInt(
      merged,
      'rateLimitPer5MinPerIpTotal',
      rateLimitPer5MinPerToken,
      2_000_000_000,
      'waf.',
    ),
  };
}

const CONSOLE_KEYS = ['enabled', 'domainName', 'certificateArn'];

/** `console`: any subset of its keys over the defaults; a custom domain comes with its certificate. */
function requireConsole(raw: Record<string, unknown>): ConsoleConfig {
  const given = raw.console ?? {};
  if (!isRecord(given)) throw new ConfigError('console must be an object of console settings ({ enabled })');
  for (const key of Object.keys(given)) {
    if (!CONSOLE_KEYS.includes(key))
      throw new ConfigError(`Unknown console key "${key}" (known: ${CONSOLE_KEYS.join(', ')})`);
  }
  const merged: Record<string, unknown> = { ...DEFAULT_CONFIG.console, ...given };
  if (typeof merged.enabled !== 'boolean') throw new ConfigError('console.enabled must be true or false');
  const { domainName, certificateArn } = merged;
  if (domainName === undefined && certificateArn === undefined) return { enabled: merged.enabled };
  if (typeof domainName !== 'string' || !HOST_NAME.test(domainName)) {
    throw new ConfigError(
      `console.domainName must be a host name (console.example.com) given with console.certificateArn, got ${JSON.stringify(domainName)}`,
    );
  }
  // CloudFront takes certificates from us-east-1 only.
  if (
    typeof certificateArn !== 'string' ||
    !/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]{36}$/.test(certificateArn)
  ) {
    throw new ConfigError(
      `console.certificateArn must be the ARN of an ACM certificate in us-east-1, given with console.domainName, got ${JSON.stringify(certificateArn)}`,
    );
  }
  return { enabled: merged.enabled, domainName: domainName.toLowerCase(), certificateArn };
}

/**
 * `alarms`: any subset of the thresholds over the defaults. Ranges keep each alarm meaningful:
 * the evaluation windows are minutes, so a queue age past a day or a silence past an hour
 * would never alarm in time.
 */
function requireAlarmThresholds(raw: Record<string, unknown>): AlarmThresholds {
  const given = raw.alarms ?? {};
  if (!isRecord(given)) throw new ConfigError('alarms must be an object of alarm thresholds');
  const defaults = DEFAULT_CONFIG.alarms;
  for (const key of Object.keys(given)) {
    if (!(key in defaults)) {
      throw new ConfigError(`Unknown alarm threshold "${key}" (known: ${Object.keys(defaults).join(', ')})`);
    }
  }
  const merged: Record<string, unknown> = { ...defaults, ...given };
  const p = 'alarms.';
  return {
    deadLetterMessages: requireInt(merged, 'deadLetterMessages', 0, 100_000, p),
    oldestMessageSeconds: requireInt(merged, 'oldestMessageSeconds', 1, 86_400, p),
    startLagP99Ms: requireInt(merged, 'startLagP99Ms', 1, 3_600_000, p),
    scannerSilenceMinutes: requireInt(merged, 'scannerSilenceMinutes', 1, 60, p),
    functionErrorRatePercent: requireInt(merged, 'functionErrorRatePercent', 0, 99, p),
    streamIteratorAgeMs: requireInt(merged, 'streamIteratorAgeMs', 1_000, 86_400_000, p),
  };
}

/** Leads up to a minute: a run is materialized at least a scanner interval before it is due. */
function requireEarlyRelease(value: unknown): NonNullable<ChronosConfig['earlyRelease']> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError('earlyRelease must be an object { baseLeadMs, readyPerSecond, maxLeadMs }');
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!['baseLeadMs', 'readyPerSecond', 'maxLeadMs'].includes(key))
      throw new ConfigError(`Unknown configuration key "earlyRelease.${key}"`);
  }
  const baseLeadMs = requireInt(raw, 'baseLeadMs', 1, 60_000, 'earlyRelease.');
  return {
    baseLeadMs,
    readyPerSecond: requireInt(raw, 'readyPerSecond', 1, 100_000, 'earlyRelease.'),
    maxLeadMs: requireInt(raw, 'maxLeadMs', baseLeadMs, 60_000, 'earlyRelease.'),
  };
}

function requireInt(raw: Record<string, unknown>, key: string, min: number, max: number, prefix = ''): number {
  const value = raw[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${prefix}${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** CloudWatch Logs accepts only its fixed list of retention periods. */
function requireLogRetention(raw: Record<string, unknown>): number {
  const allowed = Object.values(RetentionDays).filter(
    (v): v is number => typeof v === 'number' && v !== RetentionDays.INFINITE,
  );
  const value = raw.logRetentionDays;
  if (typeof value !== 'number' || !allowed.includes(value)) {
    throw new ConfigError(`logRetentionDays must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function requireOneOf<T extends string>(raw: Record<string, unknown>, key: string, allowed: readonly T[]): T {
  const value = raw[key];
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`${key} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function requireString(raw: Record<string, unknown>, key: string): string {
  const value = raw[key];
  if (typeof value !== 'string' || value === '') {
    throw new ConfigError(`${key} must be a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
