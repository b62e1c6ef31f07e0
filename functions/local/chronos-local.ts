/**
 * The whole of Chronos on one machine: the emulators, the tables and queues, and the same handler
 * modules CDK deploys, wired the way the AWS event sources wire them (API Gateway, EventBridge
 * schedule, SQS mappings on each priority lane's dispatch queue and DLQ and on the failure-notice
 * queue, DynamoDB Streams mapping). Used by `npm start` and the end-to-end tests.
 * Each function's AWS calls are held to what the synthesized CDK template grants its role
 * (aws-fidelity/), so a missing grant fails here as it would on AWS.
 */

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ENV } from '#adapters/environment';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import { COMPLETION_BATCH_SIZE, EXECUTOR_BATCH_SIZE, MAX_TIMEOUT_SECONDS } from '#core/limits';
import { PRIORITIES, type Priority } from '#core/priority';
import type { ReleaseSpreadOptions } from '#core/release-spread';
import { DEFAULT_QUOTAS, type TenantQuotas } from '#core/tenants/quotas';
import { ROUTES } from '#handlers/api/routes';
import { COMPLETION_FILTER_PATTERNS } from '#handlers/completion-filter';
import { type GatewayExchange, type RunningApiGateway, startApiGateway } from './api-gateway.ts';
import { AuthorizerCache, authorizerCacheOf } from './aws-fidelity/authorizer-cache.ts';
import { enforceFunctionEnvironments, functionVariablesOf } from './aws-fidelity/function-environments.ts';
import { gatewayRequestChecks } from './aws-fidelity/gateway-models.ts';
import { installIamHook } from './aws-fidelity/iam-enforcement.ts';
import { type LocalIamOptions, startLocalIam } from './aws-fidelity/local-iam.ts';
import { synthesizedStacks } from './aws-fidelity/synthesized-stacks.ts';
import { startCloudWatchMetrics } from './emulators/cloudwatch-metrics.ts';
import { type RunningEmulator, startDynamoDbLocal } from './emulators/dynamodb-local.ts';
import { startSqsEmulator } from './emulators/fauxqs.ts';
import { freePort } from './emulators/free-port.ts';
import { createLocalClients, LOCAL_REGION, type LocalEndpoints } from './emulators/local-clients.ts';
import { functionEnvironment, setEnvironment } from './function-environment.ts';
import { gatewayRequestValidator } from './gateway-validation.ts';
import { type HandlerOverrides, loadHandlers, needsRealHandlers } from './handler-modules.ts';
import { LOCAL_ACCOUNT_ID } from './lambda-context.ts';
import { ensureDevTenant, type LocalTenants, localTenants } from './local-tenants.ts';
import { type LocalTables, type ProvisionedResources, provisionLocalResources, type QueueInfo } from './provision.ts';
import { type RestoredRuns, resendRestoredRuns } from './restored-runs.ts';
import { type RunningScannerTimer, startScannerTimer } from './scanner-timer.ts';
import { type RunningSqsPoller, startSqsPoller } from './sqs-poller.ts';
import { fileCheckpoints } from './stream-checkpoints.ts';
import { sendStreamFailure } from './stream-failure-destination.ts';
import { type RunningStreamPoller, type StreamCheckpoints, startStreamPoller } from './stream-poller.ts';

/** The parts of Chronos a local instance can run; see `LocalChronosOptions.components`. */
export type LocalComponent = 'api' | 'scanner' | 'executor' | 'completion' | 'deadLetters' | 'notifier';

export interface LocalChronosOptions {
  /** API port; 0 (the default) picks a free one. */
  port?: number;
  /** API listen address (default 127.0.0.1). */
  host?: string;
  /** Use running emulators instead of starting DynamoDB Local and fauxqs. */
  endpoints?: LocalEndpoints;
  /**
   * Keep the tables in this folder (DynamoDB Local's -dbPath) instead of memory: a later start on
   * the same folder finds its jobs, runs, tenants and tokens, and sends again the runs whose
   * messages were lost with the in-memory SQS emulator (restored-runs.ts). Ignored with `endpoints`.
   */
  dataDir?: string;
  /** Key that seals secrets here instead of KMS (default: SECRETS_LOCAL_KEY, else one per process). */
  secretsLocalKey?: string;
  /** Prefix of table and queue names (default `chronos-local-`). */
  namePrefix?: string;
  /** Scanner schedule (default 10 000 ms); 0 runs the scanner only through invokeScanner(). */
  scannerIntervalMs?: number;
  /** Origins answered with CORS, as a stage's corsAllowOrigins (default none: no CORS). */
  corsAllowOrigins?: readonly string[];
  /**
   * Executor concurrency of the `normal` lane: most parallel SQS pollers on its dispatch queue
   * (default 8; the poller scales up from 8 to it).
   */
  sqsConcurrency?: number;
  /**
   * Executor concurrency of the other priority lanes, each its own pollers on its own queue, as
   * each lane's event source has its own maximum concurrency (default high 8, low 4).
   */
  laneConcurrency?: { high?: number; low?: number };
  /**
   * Early release of dispatch messages (core/release-spread.ts), so that runs are claimed before
   * their due second; unset: released in the second before, as deployed by default.
   */
  releaseSpread?: ReleaseSpreadOptions;
  /** Wait between empty stream reads (default 150 ms). */
  streamPollIntervalMs?: number;
  /**
   * The completion mapping's batching window, ms: 0 (the default) delivers each poll's records at
   * once — locally latency matters more than invocations — while the bench passes the deployed
   * window (COMPLETION_BATCHING_WINDOW_SECONDS), so the costs it measures are AWS's.
   */
  completionBatchingWindowMs?: number;
  /** DUE_SHARD_COUNT (default 16). */
  dueShardCount?: number;
  /** SCAN_HORIZON_SECONDS (default 90). */
  scanHorizonSeconds?: number;
  /** RUN_RETENTION_DAYS; unset leaves the handlers' own default. */
  runRetentionDays?: number;
  /** RESPONSE_EXCERPT_BYTES; unset leaves the handlers' own default. */
  responseExcerptBytes?: number;
  /** LEASE_MARGIN_SECONDS; unset leaves the handlers' own default. */
  leaseMarginSeconds?: number;
  /** SWEEP_GRACE_SECONDS: how long past its release a run may stay unclaimed before the sweep sends it again; unset leaves the default (60). */
  sweepGraceSeconds?: number;
  /** Dispatch queue visibility timeout (default 6 x the executor timeout, as deployed). */
  visibilityTimeoutSeconds?: number;
  /** Receives before the dispatch queue gives a message to its DLQ (default 5). */
  maxReceiveCount?: number;
  /** Receives before a failure notice moves to the notifier's DLQ (default 8). */
  notifierMaxReceiveCount?: number;
  /** NOTIFY_TIMEOUT_SECONDS: how long an onFailure endpoint may take (default 10). */
  notifyTimeoutSeconds?: number;
  /** NOTIFY_BACKOFF_SECONDS: first backoff of a notice not delivered (default 10). */
  notifyBackoffSeconds?: number;
  /** Name servers (`ip:port`) for target names (TARGET_DNS_SERVERS); unset: the system's. */
  targetDnsServers?: readonly string[];
  /** The dev bearer token (default DEFAULT_DEV_TOKEN), stored in the tenants table as its SHA-256 only. */
  token?: string;
  /** Default quotas of every tenant (LOCAL_DEFAULT_QUOTAS where not given). */
  quotas?: Partial<TenantQuotas>;
  /** An operator token with the admin scope (monitoring across tenants); unset: none works. */
  adminToken?: string;
  /** The dev tenant the token authenticates (default `dev-tenant`). */
  tenantId?: string;
  /** Let jobs target loopback addresses, where local targets live (default true). */
  allowLoopbackTargets?: boolean;
  /** Test handlers in place of the real modules; anything not given is imported from functions/handlers. */
  handlers?: HandlerOverrides;
  /**
   * Which components to run (default: all). Several processes can share one set of emulators
   * (`endpoints`), each running a part, e.g. one only the executor's poller; the modules of the
   * components left out are not loaded. Without the API, `apiUrl` is empty.
   */
  components?: Partial<Record<LocalComponent, boolean>>;
  /**
   * Where the completion handler's stream mapping goes on from, and where it reports its progress:
   * a process that replaces a killed one continues after the last checkpoint (the chaos run).
   */
  completionCheckpoints?: StreamCheckpoints;
  /**
   * Local IAM (default on): every AWS call a handler makes is checked against what the synthesized
   * CDK template grants that function's role, and fails with AccessDeniedException as on AWS if
   * not granted. `false` turns it off (for tools that measure something else, never for a test of
   * Chronos' behaviour); `revoke` takes grants away (the test that proves enforcement bites).
   */
  iam?: false | LocalIamOptions;
  /**
   * API Gateway's request validation with the synthesized REST API's models and validators
   * (default on): what API Gateway refuses, the local gateway refuses before any function runs.
   */
  gatewayValidation?: boolean;
  /**
   * API Gateway's cache of authorizer answers. Default: the synthesized authorizer's TTL (30 s),
   * so a revoked token keeps working until its cached answer ends, as on AWS; a number of seconds
   * instead (a test that revokes a token and waits for it); `false`: every request authorized anew.
   */
  authorizerCacheSeconds?: number | false;
  log?: (message: string, error?: unknown) => void;
  /** The built console to serve at the API's origin outside `/v1` (console-build.ts builds it). */
  consoleDir?: string;
  /**
   * Sees every answer of the API as the client gets it. The tests check each against the OpenAPI
   * document (test/support/openapi-conformance-setup.ts); nothing else needs it.
   */
  onApiResponse?: (exchange: GatewayExchange) => void;
}

export interface LocalChronos {
  /** Base URL of the API, no trailing slash (empty when this instance runs no API). */
  apiUrl: string;
  token: string;
  tenantId: string;
  /** The dev tenant's signing secret (`whsec_...`): verifies its calls with any Standard Webhooks library. */
  signingSecret: string;
  /** Base64 key that seals secrets here instead of KMS (SECRETS_LOCAL_KEY): `npm run admin` needs it locally. */
  secretsLocalKey: string;
  endpoints: LocalEndpoints;
  tables: LocalTables;
  /** Creates tenants and tokens as `npm run admin` does (tests use it for a second tenant). */
  tenants: LocalTenants;
  queues: ProvisionedResources['queues'];
  runsStreamArn: string;
  /** Runs the scanner now (after any scan in progress) and resolves with its result. */
  invokeScanner(): Promise<unknown>;
  /** Runs found unfinished in kept data (`dataDir`) at start and sent again; zero otherwise. */
  restoredRuns: RestoredRuns;
  /** Stops pollers, timer, API and the emulators this instance started; restores the environment. */
  stop(): Promise<void>;
}

export const DEFAULT_DEV_TOKEN = 'chronos-local-dev-token';
/**
 * Local quota defaults: roomy, so the single dev tenant's tests and demos are not throttled. A
 * deployed stage must keep maxConcurrentRuns below its executor concurrency (lib/config.ts); here
 * a tenant is capped below the 8 local executor workers with its own quota
 * (`tenants create <name> --quota maxConcurrentRuns=4`), as the fairness test does.
 */
export const LOCAL_DEFAULT_QUOTAS: TenantQuotas = {
  ...DEFAULT_QUOTAS,
  createsPerSecond: 200,
  createBurst: 500,
  triggersPerSecond: 200,
  triggerBurst: 500,
  maxConcurrentRuns: 32,
};
/**
 * Seals secret headers and signing secrets locally; one per process, so every local Chronos here
 * can open what another sealed. A process started by one that runs Chronos inherits its key
 * (SECRETS_LOCAL_KEY), so several processes on the same emulators open the same secrets.
 */
const LOCAL_SECRETS_KEY = process.env[ENV.secretsLocalKey] || LocalSecretCipher.generateKey();
export const DEFAULT_DEV_TENANT_ID = 'dev-tenant';

/** In the data folder: where the completion poller resumes reading the runs stream. */
const RUNS_STREAM_CHECKPOINTS = 'runs-stream-checkpoints.json';
const API_TIMEOUT_SECONDS = 10;
const SCANNER_TIMEOUT_SECONDS = 50;
const EXECUTOR_TIMEOUT_SECONDS = MAX_TIMEOUT_SECONDS + 30;
const COMPLETION_TIMEOUT_SECONDS = 30;
const DEAD_LETTER_TIMEOUT_SECONDS = 30;
/** Executor pollers of the high and low lanes when `laneConcurrency` does not say. */
export const DEFAULT_LANE_CONCURRENCY = { high: 8, low: 4 } as const;
/** Dead letters are rare; two workers per lane's DLQ keep up and leave the executor the CPU. */
const DEAD_LETTER_CONCURRENCY = 2;
const NOTIFIER_TIMEOUT_SECONDS = 30;
/** Failure notices are rarer than runs; a hanging endpoint holds one worker's batch at most its timeout. */
const NOTIFIER_CONCURRENCY = 2;

/** The environment the real handlers were loaded with; see handler-modules.ts for why it is fixed. */
let realHandlersEnvironment: string | undefined;

/** Starts everything and resolves once the API accepts requests. */
export async function startLocalChronos(options: LocalChronosOptions = {}): Promise<LocalChronos> {
  const log = options.log ?? ((message, error) => console.error(`[chronos-local] ${message}`, error ?? ''));
  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        log('stopping a local component failed', error);
      }
    }
    cleanups.length = 0;
  };

  const runs = (component: LocalComponent) => options.components?.[component] ?? true;
  const executorWorkers: Record<Priority, number> = {
    high: options.laneConcurrency?.high ?? DEFAULT_LANE_CONCURRENCY.high,
    normal: options.sqsConcurrency ?? 8,
    low: options.laneConcurrency?.low ?? DEFAULT_LANE_CONCURRENCY.low,
  };
  // Data kept on disk belongs to the emulators this instance starts; given endpoints, it has none.
  const keptData = options.endpoints === undefined ? options.dataDir : undefined;
  try {
    const onStarted = (emulator: RunningEmulator) => cleanups.push(() => emulator.stop());
    const emulators = options.endpoints ?? (await startEmulators(onStarted, keptData));
    // Only the API (GET /v1/monitoring/system) reads CloudWatch: a local one is started for it if none is given.
    const endpoints =
      emulators.cloudwatch !== undefined || options.components?.api === false
        ? emulators
        : { ...emulators, cloudwatch: await startLocalCloudWatch(emulators.sqs, onStarted) };
    const clients = createLocalClients(endpoints);
    cleanups.push(() => clients.destroy());

    const resources = await provisionLocalResources({
      dynamodb: clients.dynamodb,
      sqs: clients.sqs,
      sqsEndpoint: endpoints.sqs,
      namePrefix: options.namePrefix,
      maxReceiveCount: options.maxReceiveCount,
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
      notifierMaxReceiveCount: options.notifierMaxReceiveCount,
    });
    const token = options.token ?? DEFAULT_DEV_TOKEN;
    const tenantId = options.tenantId ?? DEFAULT_DEV_TENANT_ID;
    const secretsLocalKey = options.secretsLocalKey ?? LOCAL_SECRETS_KEY;
    const tenants = localTenants(clients.dynamodb, resources.tables.tenants, new LocalSecretCipher(secretsLocalKey));
    const signingSecret = await ensureDevTenant(tenants, tenantId, token);

    // Known before the functions' environment is set: the API's own port is refused as a target.
    const apiPort = runs('api') ? options.port || (await freePort()) : undefined;
    // A local Chronos already running in this process (the other half of a split setup) shares
    // this environment: the ports it refuses stay refused.
    const sharedPorts = (process.env[ENV.chronosLocalPorts] ?? '').split(',').filter(Boolean).map(Number);
    const cors = options.corsAllowOrigins ?? [];
    const environment = functionEnvironment({
      endpoints,
      ...(apiPort === undefined ? {} : { apiPort }),
      otherOwnPorts: sharedPorts,
      resources,
      quotas: { ...LOCAL_DEFAULT_QUOTAS, ...options.quotas },
      secretsLocalKey,
      ...(options.adminToken === undefined
        ? {}
        : { adminTokenSha256: createHash('sha256').update(options.adminToken).digest('hex') }),
      allowLoopbackTargets: options.allowLoopbackTargets ?? true,
      concurrency: options.sqsConcurrency ?? 8,
      executorWorkers: PRIORITIES.reduce((sum, lane) => sum + executorWorkers[lane], 0),
      dueShardCount: options.dueShardCount ?? 16,
      scanHorizonSeconds: options.scanHorizonSeconds ?? 90,
      runRetentionDays: options.runRetentionDays,
      responseExcerptBytes: options.responseExcerptBytes,
      leaseMarginSeconds: options.leaseMarginSeconds,
      sweepGraceSeconds: options.sweepGraceSeconds,
      notifyTimeoutSeconds: options.notifyTimeoutSeconds,
      notifyBackoffSeconds: options.notifyBackoffSeconds,
      targetDnsServers: options.targetDnsServers,
      releaseSpread: options.releaseSpread,
      // Async jobs' workers call back to this API; without one here (a split setup), the other
      // half's stays in the shared environment.
      ...(apiPort === undefined ? {} : { callbackBaseUrl: localApiBaseUrl(options.host, apiPort) }),
    });
    // As CDK sets it on the API functions when the stage has CORS origins.
    if (cors.length > 0) environment[ENV.corsAllowOrigins] = cors.join(',');
    const effectiveHandlers = withoutUnusedHandlers(options.handlers, runs, log);
    if (needsRealHandlers(ROUTES, effectiveHandlers)) {
      // The own ports differ per instance (each its API port) and are merged, not compared.
      const signature = JSON.stringify({
        ...environment,
        [ENV.chronosLocalPorts]: undefined,
        [ENV.callbackBaseUrl]: undefined,
      });
      if (realHandlersEnvironment !== undefined && realHandlersEnvironment !== signature) {
        throw new Error(
          'The real handler modules are already loaded in this process with other endpoints or names; ' +
            'run each local Chronos with real handlers in its own process (vitest does so per test file)',
        );
      }
      realHandlersEnvironment = signature;
    }
    const restoreEnvironment = setEnvironment(environment);
    cleanups.push(restoreEnvironment);
    // Before the handlers build their clients: the hook puts the IAM check on each of them.
    installIamHook();
    const validatesRequests = runs('api') && options.gatewayValidation !== false;
    const cachesAuthorizer = runs('api') && options.authorizerCacheSeconds !== false;
    // Read once: the IAM policies, the gateway's models and its authorizer cache come from the same templates.
    const stacks =
      options.iam !== false || validatesRequests || cachesAuthorizer ? await synthesizedStacks() : undefined;
    if (stacks && options.iam !== false) {
      const iam = startLocalIam(
        stacks,
        { ...resources, region: LOCAL_REGION, account: LOCAL_ACCOUNT_ID },
        options.iam ?? {},
        (message) => log(message),
      );
      cleanups.push(iam.stop);
      // And the variables each function is given: a read of one its deployed function lacks fails as there.
      cleanups.push(enforceFunctionEnvironments(functionVariablesOf(stacks)));
    }
    const handlers = await loadHandlers(ROUTES, effectiveHandlers);
    const validateRequest =
      stacks && validatesRequests ? gatewayRequestValidator(gatewayRequestChecks(stacks.stateless)) : undefined;
    const cacheSettings = stacks && cachesAuthorizer ? authorizerCacheOf(stacks.stateless) : undefined;
    const authorizerCache =
      cacheSettings &&
      new AuthorizerCache(
        typeof options.authorizerCacheSeconds === 'number'
          ? { ...cacheSettings, ttlSeconds: options.authorizerCacheSeconds }
          : cacheSettings,
      );

    // Before any poller or scan: the runs kept on disk get their messages back first.
    const restoredRuns =
      keptData !== undefined
        ? await resendRestoredRuns({
            dynamodb: clients.dynamodb,
            sqs: clients.sqs,
            runsTable: resources.tables.runs,
            dispatchQueueUrl: resources.queues.dispatch.url,
            laneQueueUrls: { high: resources.queues.dispatchHigh.url, low: resources.queues.dispatchLow.url },
          })
        : { queued: 0, running: 0 };

    const api: RunningApiGateway | undefined = runs('api')
      ? await startApiGateway({
          handlers: handlers.api,
          authorizer: handlers.authorizer,
          routes: ROUTES,
          port: apiPort ?? 0,
          host: options.host,
          functionTimeoutSeconds: API_TIMEOUT_SECONDS,
          corsAllowOrigins: cors,
          log,
          ...(validateRequest ? { validateRequest } : {}),
          ...(authorizerCache ? { authorizerCache } : {}),
          ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
          ...(options.onApiResponse ? { onResponse: options.onApiResponse } : {}),
        })
      : undefined;
    if (api) cleanups.push(() => api.stop());

    // One executor poller per priority lane, as one event source per lane's queue: the same
    // function, its own workers, so a flood in one lane never takes another's.
    for (const lane of runs('executor') ? PRIORITIES : []) {
      const queue = laneQueues(resources, lane).dispatch;
      const executor = startSqsPoller({
        sqs: clients.sqs,
        queueUrl: queue.url,
        queueArn: queue.arn,
        handler: handlers.executor,
        functionName: 'executor',
        timeoutSeconds: EXECUTOR_TIMEOUT_SECONDS,
        concurrency: executorWorkers[lane],
        batchSize: EXECUTOR_BATCH_SIZE,
        log,
      });
      cleanups.push(() => executor.stop());
    }

    // The dead-letter handler consumes every lane's DLQ.
    for (const lane of runs('deadLetters') ? PRIORITIES : []) {
      const queue = laneQueues(resources, lane).deadLetter;
      const deadLetters = startSqsPoller({
        sqs: clients.sqs,
        queueUrl: queue.url,
        queueArn: queue.arn,
        handler: handlers.deadLetter,
        functionName: 'dead-letter',
        timeoutSeconds: DEAD_LETTER_TIMEOUT_SECONDS,
        concurrency: DEAD_LETTER_CONCURRENCY,
        log,
      });
      cleanups.push(() => deadLetters.stop());
    }

    const notifier: RunningSqsPoller | undefined = runs('notifier')
      ? startSqsPoller({
          sqs: clients.sqs,
          queueUrl: resources.queues.notices.url,
          queueArn: resources.queues.notices.arn,
          handler: handlers.notifier,
          functionName: 'notifier',
          timeoutSeconds: NOTIFIER_TIMEOUT_SECONDS,
          concurrency: NOTIFIER_CONCURRENCY,
          log,
        })
      : undefined;
    if (notifier) cleanups.push(() => notifier.stop());

    const completion: RunningStreamPoller | undefined = runs('completion')
      ? startStreamPoller({
          streams: clients.streams,
          streamArn: resources.runsStreamArn,
          handler: handlers.completion,
          filterPatterns: COMPLETION_FILTER_PATTERNS,
          functionName: 'completion',
          timeoutSeconds: COMPLETION_TIMEOUT_SECONDS,
          pollIntervalMs: options.streamPollIntervalMs ?? 150,
          // As the deployed mapping (lib/constructs/completion-handler.ts); its batching window only when asked.
          batchSize: COMPLETION_BATCH_SIZE,
          batchingWindowMs: options.completionBatchingWindowMs ?? 0,
          maxRetries: 5,
          bisectBatchOnError: true,
          ...(options.completionCheckpoints
            ? { checkpoints: options.completionCheckpoints }
            : keptData !== undefined
              ? { checkpoints: fileCheckpoints(join(keptData, RUNS_STREAM_CHECKPOINTS)) }
              : {}),
          // As the deployed mapping's on-failure destination: the batch's coordinates go to the
          // stream-failures queue, whose handler reads the records back and completes their runs.
          onFailure: (failure) =>
            sendStreamFailure(clients.sqs, resources.queues.streamFailures.url, resources.runsStreamArn, failure).catch(
              (error) => log(`completion: failed batch of ${failure.shardId} not queued`, error),
            ),
          log,
        })
      : undefined;
    if (completion) cleanups.push(() => completion.stop());

    const streamFailures: RunningSqsPoller | undefined = runs('completion')
      ? startSqsPoller({
          sqs: clients.sqs,
          queueUrl: resources.queues.streamFailures.url,
          queueArn: resources.queues.streamFailures.arn,
          handler: handlers.streamFailures,
          functionName: 'stream-failures',
          timeoutSeconds: DEAD_LETTER_TIMEOUT_SECONDS,
          concurrency: 1,
          batchSize: 1,
          log,
        })
      : undefined;
    if (streamFailures) cleanups.push(() => streamFailures.stop());

    const scanner: RunningScannerTimer | undefined = runs('scanner')
      ? startScannerTimer({
          handler: handlers.scanner,
          intervalMs: options.scannerIntervalMs ?? 10_000,
          functionName: 'scanner',
          timeoutSeconds: SCANNER_TIMEOUT_SECONDS,
          log,
        })
      : undefined;
    if (scanner) cleanups.push(() => scanner.stop());

    return {
      apiUrl: api?.url ?? '',
      token,
      tenantId,
      signingSecret,
      secretsLocalKey,
      endpoints,
      tables: resources.tables,
      tenants,
      queues: resources.queues,
      runsStreamArn: resources.runsStreamArn,
      restoredRuns,
      invokeScanner: () =>
        scanner ? scanner.runNow() : Promise.reject(new Error('this local Chronos runs no scanner')),
      stop: cleanUp,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

/**
 * The overrides, plus a stand-in for every handler of a component that is not run, so that
 * loadHandlers does not import (and a process does not pay for) modules it never invokes.
 */
function withoutUnusedHandlers(
  overrides: HandlerOverrides = {},
  runs: (component: LocalComponent) => boolean,
  log: (message: string) => void,
): HandlerOverrides {
  const notRun = (name: string) => async () => {
    throw new Error(`${name} is not run by this local Chronos`);
  };
  return {
    ...overrides,
    ...(runs('api')
      ? {}
      : {
          api: Object.fromEntries(ROUTES.map((route) => [route.handler, notRun(`api/${route.handler}`)])),
          authorizer: notRun('authorizer'),
        }),
    ...(runs('scanner') ? {} : { scanner: notRun('scanner') }),
    ...(runs('executor') ? {} : { executor: notRun('executor') }),
    ...(runs('completion') ? {} : { completion: notRun('completion'), streamFailures: notRun('streamFailures') }),
    // A stand-in completion handler's failed batches are not the real one's to complete again.
    ...(overrides.completion && !overrides.streamFailures
      ? {
          streamFailures: async (event: { Records: unknown[] }) => {
            log(`stream-failures: ${event.Records.length} failed batch(es) of a stand-in completion handler dropped`);
            return { batchItemFailures: [] };
          },
        }
      : {}),
    ...(runs('deadLetters') ? {} : { deadLetter: notRun('deadLetter') }),
    ...(runs('notifier') ? {} : { notifier: notRun('notifier') }),
  };
}

async function startEmulators(
  onStarted: (emulator: RunningEmulator) => void,
  dataDir: string | undefined,
): Promise<LocalEndpoints> {
  const [dynamodb, sqs] = await Promise.allSettled([startDynamoDbLocal({ dataDir }), startSqsEmulator()]);
  for (const started of [dynamodb, sqs]) if (started.status === 'fulfilled') onStarted(started.value);
  if (dynamodb.status === 'rejected') throw dynamodb.reason;
  if (sqs.status === 'rejected') throw sqs.reason;
  return { dynamodb: dynamodb.value.endpoint, sqs: sqs.value.endpoint };
}

async function startLocalCloudWatch(sqsEndpoint: string, onStarted: (emulator: RunningEmulator) => void) {
  const cloudwatch = await startCloudWatchMetrics({ sqsEndpoint });
  onStarted(cloudwatch);
  return cloudwatch.endpoint;
}

/** A priority lane's dispatch queue and dead-letter queue among the provisioned ones. */
function laneQueues(resources: ProvisionedResources, lane: Priority): { dispatch: QueueInfo; deadLetter: QueueInfo } {
  const { queues } = resources;
  if (lane === 'high') return { dispatch: queues.dispatchHigh, deadLetter: queues.deadLetterHigh };
  if (lane === 'low') return { dispatch: queues.dispatchLow, deadLetter: queues.deadLetterLow };
  return { dispatch: queues.dispatch, deadLetter: queues.deadLetter };
}

/**
 * The local API's base URL as a worker on this machine reaches it: a wildcard listen address
 * (all interfaces) is reached through loopback.
 */
export function localApiBaseUrl(host: string | undefined, port: number): string {
  const reachable =
    host === undefined || host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
