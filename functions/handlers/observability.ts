/**
 * Logs, metrics and traces for every handler. Metrics are CloudWatch EMF lines in the function's
 * log (no PutMetricData calls), namespace `Chronos`, with only `service` and `stage` as
 * dimensions, so the number of series stays fixed; `METRICS_TENANT_DIMENSION=true` adds a
 * per-tenant copy of the run metrics for stages that want (and pay for) it.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { MetricUnit as MetricUnitName } from '@aws-lambda-powertools/metrics/types';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { tracer } from '#adapters/tracer';
import { logger } from './logger.ts';

export { MetricUnit, tracer };

const EMPTY_METRICS_NOTICE = 'No application metrics to publish';

export const metrics = new Metrics({
  namespace: 'Chronos',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'chronos',
  defaultDimensions: { stage: process.env[OBSERVABILITY_ENV.stage] ?? 'local' },
  // An invocation that had nothing to count is normal here: keep that notice out of WARN logs.
  logger: {
    trace: (...args: unknown[]) => logger.trace(String(args[0])),
    debug: (...args: unknown[]) => logger.debug(String(args[0])),
    info: (...args: unknown[]) => logger.info(String(args[0])),
    warn: (...args: unknown[]) =>
      String(args[0]).startsWith(EMPTY_METRICS_NOTICE) ? logger.debug(String(args[0])) : logger.warn(String(args[0])),
    error: (...args: unknown[]) => logger.error(String(args[0])),
  },
});

const tenantDimension = () => process.env[OBSERVABILITY_ENV.metricsTenantDimension] === 'true';

/** Adds a run metric; with the tenant dimension enabled, also its per-tenant copy. */
export function addRunMetric(name: string, unit: MetricUnitName, value: number, tenantId: string): void {
  metrics.addMetric(name, unit, value);
  if (tenantDimension()) {
    const single = metrics.singleMetric();
    single.addDimension('tenantId', tenantId);
    single.addMetric(name, unit, value);
  }
}

type Handler<E, R> = (event: E, context: Context) => Promise<R>;

/** The handler traced (X-Ray, when on Lambda) and logging with its Lambda context. */
export function instrumented<E, R>(handler: Handler<E, R>) {
  return middy<E, R>(handler).use(captureLambdaHandler(tracer)).use(injectLambdaContext(logger));
}

/** `instrumented`, and publishing the metrics the invocation added when it ends. */
export function instrumentedWithMetrics<E, R>(handler: Handler<E, R>) {
  return instrumented(handler).use(logMetrics(metrics));
}
