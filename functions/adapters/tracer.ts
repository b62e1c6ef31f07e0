/**
 * The X-Ray tracer every function shares. It is active only inside Lambda (Powertools checks
 * AWS_EXECUTION_ENV) and never when POWERTOOLS_TRACE_ENABLED=false, which the local runtime sets.
 */
// First: it decides the X-Ray SDK's mode, which the SDK reads once as the tracer loads it.
import './xray-mode.ts';
import { Tracer } from '@aws-lambda-powertools/tracer';

export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'chronos' });

/** Traces the client's calls as X-Ray subsegments when tracing is on; returns the client. */
export function traced<T>(client: T): T {
  return tracer.isTracingEnabled() ? tracer.captureAWSv3Client(client) : client;
}
