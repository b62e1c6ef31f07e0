/**
 * One bench environment: a fresh DynamoDB Local, fauxqs and the HTTP target in their own
 * processes, and startLocalChronos in this process driving the real handlers through a
 * HandlerMeter, with the AWS request counter registered before any handler client exists.
 */

import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { registerClientMiddleware } from '#adapters/aws-clients';
import { COMPLETION_BATCHING_WINDOW_SECONDS, EXECUTOR_BATCH_SIZE } from '#core/limits';
import type { ReleaseSpreadOptions } from '#core/release-spread';
import { ROUTES } from '#handlers/api/routes';
import type { ApiHandler, AuthorizerHandler } from '#local/api-gateway';
import { DEFAULT_LANE_CONCURRENCY, type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type RunningEmulator, startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import type { ScannerHandler } from '#local/scanner-timer';
import type { SqsHandler } from '#local/sqs-poller';
import type { StreamHandler } from '#local/stream-poller';
import { AwsRequestCounter } from './aws-request-counter.ts';
import { type ChildHandle, startChild } from './child-process.ts';
import { HandlerMeter } from './handler-meter.ts';

export interface HarnessConfig {
  scannerIntervalMs: number;
  scanHorizonSeconds: number;
  sqsConcurrency: number;
  /** Executor pollers of the high and low lanes (startLocalChronos' defaults when unset). */
  laneConcurrency?: { high?: number; low?: number };
  dueShardCount?: number;
  /** Functions whose invocations are held back until the meter opens them. */
  closedGates?: string[];
  /** Early release of dispatch messages (core/release-spread.ts); unset: in the second before. */
  releaseSpread?: ReleaseSpreadOptions;
  /** The async workload's target instead of the plain one: it takes calls with 202 and heartbeats (async-target-process.ts). */
  asyncTarget?: { heartbeatEveryMs: number; workMs: number; poolSize: number };
}

export interface Harness {
  chronos: LocalChronos;
  target: ChildHandle<{ url: string }>;
  sqs: ChildHandle<{ endpoint: string }>;
  counter: AwsRequestCounter;
  meter: HandlerMeter;
  /** Messages startLocalChronos logged (failures of local components). */
  logged: string[];
  stop(): Promise<void>;
}

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** Executor pollers of every lane: what the fleet's calls in flight are counted against. */
function fleetWorkers(config: HarnessConfig): number {
  const high = config.laneConcurrency?.high ?? DEFAULT_LANE_CONCURRENCY.high;
  const low = config.laneConcurrency?.low ?? DEFAULT_LANE_CONCURRENCY.low;
  return config.sqsConcurrency + high + low;
}

/** Starts child processes first, then DynamoDB Local, then Chronos. */
export async function startHarness(config: HarnessConfig): Promise<Harness> {
  const counter = new AwsRequestCounter();
  const unregister = registerClientMiddleware(counter.hook);
  const meter = new HandlerMeter();
  for (const name of config.closedGates ?? []) meter.close(name);
  const logged: string[] = [];
  const stops: Array<() => Promise<void> | void> = [unregister];
  const stop = async () => {
    for (const fn of stops.reverse()) await Promise.resolve(fn()).catch(() => undefined);
  };
  try {
    const [target, sqs, dynamodb] = await Promise.all([
      config.asyncTarget
        ? startChild<{ url: string }>(here('./async-target-process.ts'), [JSON.stringify(config.asyncTarget)])
        : startChild<{ url: string }>(here('./target-process.ts')),
      startChild<{ endpoint: string }>(here('./fauxqs-process.ts')),
      startDynamoDbLocal(),
    ]);
    stops.push(
      () => target.stop(),
      () => sqs.stop(),
      () => (dynamodb as RunningEmulator).stop(),
    );
    const api: Record<string, ApiHandler> = {};
    for (const route of ROUTES) {
      api[route.handler] = meter.wrap<APIGatewayProxyEvent, Awaited<ReturnType<ApiHandler>>>(
        `api:${route.handler}`,
        async () => (await import(/* @vite-ignore */ `#handlers/api/${route.handler}`)).handler,
      );
    }
    const chronos = await startLocalChronos({
      endpoints: { dynamodb: dynamodb.endpoint, sqs: sqs.ready.endpoint },
      scannerIntervalMs: config.scannerIntervalMs,
      scanHorizonSeconds: config.scanHorizonSeconds,
      sqsConcurrency: config.sqsConcurrency,
      ...(config.laneConcurrency ? { laneConcurrency: config.laneConcurrency } : {}),
      ...(config.releaseSpread ? { releaseSpread: config.releaseSpread } : {}),
      // The bench measures the scheduler, not the fairness machinery: its one tenant's in-flight cap
      // is what the local executors of every lane can have in flight at most (workers × batch size),
      // so it can never bind, takes no slot and no run is deferred. What a binding cap costs (slot
      // writes and deferrals) is reported apart: CAPACITY.md, and docs/tenants.md (Quotas).
      quotas: { maxConcurrentRuns: fleetWorkers(config) * EXECUTOR_BATCH_SIZE },
      dueShardCount: config.dueShardCount ?? 16,
      // The deployed completion mapping gathers a second of records per invocation: so does the
      // bench, so that what it counts per execution (invocations, the aggregates' writes) is AWS's.
      completionBatchingWindowMs: COMPLETION_BATCHING_WINDOW_SECONDS * 1000,
      log: (message, error) => logged.push(`${message}${error ? ` ${String(error)}` : ''}`),
      handlers: {
        api,
        authorizer: meter.wrap(
          'authorizer',
          async () => (await import('#handlers/authorizer')).handler as AuthorizerHandler,
        ),
        scanner: meter.wrap('scanner', async () => (await import('#handlers/scanner')).handler as ScannerHandler),
        executor: meter.wrap(
          'executor',
          async () => (await import('#handlers/executor')).handler as SqsHandler,
          (event) => event.Records.length,
        ),
        completion: meter.wrap(
          'completion',
          async () => (await import('#handlers/completion')).handler as StreamHandler,
          (event) => event.Records.length,
        ),
      },
    });
    stops.push(() => chronos.stop());
    return { chronos, target, sqs, counter, meter, logged, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
