/**
 * The Lambda `Context` and invocation rules for handlers run by the local runtime: a fresh request
 * id per invocation, the remaining time counting down from the function's timeout, and an
 * invocation that fails with Lambda's own message once that timeout passes.
 *
 * Several invocations of one function run at once in this one process, as on Lambda with
 * multi-concurrency. Like the Lambda runtime there, each invocation runs inside its own
 * InvokeStore scope, so libraries that keep per-invocation state (Powertools' BatchProcessor and
 * Logger) keep it apart once `AWS_LAMBDA_MAX_CONCURRENCY` is set (see MAX_CONCURRENCY_ENV).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { runInInvocationScope } from './invoke-store.ts';

/** A Lambda handler as Chronos writes them: async, no callback. */
export type LambdaHandler<TEvent, TResult> = (event: TEvent, context: Context) => Promise<TResult>;

export interface LocalFunction {
  functionName: string;
  timeoutSeconds: number;
  memoryLimitInMB?: number;
  region?: string;
}

/** The account of local ARNs (Lambda's invokedFunctionArn, local IAM's table and key ARNs). */
export const LOCAL_ACCOUNT_ID = '000000000000';

/** Set by the Lambda runtime when invocations share a process; Powertools then scopes its state per invocation. */
export const MAX_CONCURRENCY_ENV = 'AWS_LAMBDA_MAX_CONCURRENCY';

/** Builds the context Lambda would pass to one invocation that starts now. */
export function createLambdaContext(fn: LocalFunction): Context {
  const deadline = Date.now() + fn.timeoutSeconds * 1000;
  const region = fn.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const unsupported = (name: string) => () => {
    throw new Error(`context.${name}() is a callback-era API; Chronos handlers are async`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT_ID}:function:${fn.functionName}`,
    memoryLimitInMB: String(fn.memoryLimitInMB ?? 1024),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fn.functionName}`,
    logStreamName: `local/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}

/** Raised when an invocation outlives the function's timeout, as Lambda reports it. */
export class LambdaTimeoutError extends Error {
  constructor(functionName: string, timeoutSeconds: number) {
    super(`${functionName}: Task timed out after ${timeoutSeconds.toFixed(2)} seconds`);
    this.name = 'LambdaTimeoutError';
  }
}

/**
 * Invokes `handler` once with a fresh context. Like Lambda, the caller sees a failure when the
 * timeout passes; unlike Lambda the handler's promise cannot be frozen, so it is merely abandoned.
 */
export async function invokeLambda<TEvent, TResult>(
  handler: LambdaHandler<TEvent, TResult>,
  event: TEvent,
  fn: LocalFunction,
): Promise<TResult> {
  const context = createLambdaContext(fn);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new LambdaTimeoutError(fn.functionName, fn.timeoutSeconds)),
      fn.timeoutSeconds * 1000,
    );
  });
  try {
    const invocation = runInInvocationScope(
      context.awsRequestId,
      () => Promise.resolve().then(() => handler(event, context)),
      fn.functionName,
    );
    return await Promise.race([invocation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
