/**
 * Imports the real handler modules, the same files CDK bundles, for the local runtime. Handlers
 * build their AWS clients from the environment once per process, so the environment must be set
 * before this runs (and, for the API's modules imported at their first request, until the local
 * Chronos stops), and one process can host only one set of real handlers.
 */
import type { Route } from '#handlers/api/routes';
import type { ApiHandler, AuthorizerHandler } from './api-gateway.ts';
import { runInInvocationScope } from './invoke-store.ts';
import type { ScannerHandler } from './scanner-timer.ts';
import type { SqsHandler } from './sqs-poller.ts';
import type { StreamHandler } from './stream-poller.ts';

export interface ChronosHandlers {
  /** By route `handler` name (file name under functions/handlers/api/). */
  api: Record<string, ApiHandler>;
  authorizer: AuthorizerHandler;
  scanner: ScannerHandler;
  executor: SqsHandler;
  completion: StreamHandler;
  /** Consumes the dispatch queue's dead-letter queue. */
  deadLetter: SqsHandler;
  /** Consumes the failure-notice queue: calls onFailure URLs. */
  notifier: SqsHandler;
  /** Consumes the runs-stream batches the completion poller gave up on. */
  streamFailures: SqsHandler;
}

export interface HandlerOverrides {
  api?: Record<string, ApiHandler>;
  authorizer?: AuthorizerHandler;
  scanner?: ScannerHandler;
  executor?: SqsHandler;
  completion?: StreamHandler;
  deadLetter?: SqsHandler;
  notifier?: SqsHandler;
  streamFailures?: SqsHandler;
}

/**
 * Returns the overrides where given and the real `handler` export of each module otherwise (an API
 * route's at its first request).
 */
export async function loadHandlers(
  routes: readonly Route[],
  overrides: HandlerOverrides = {},
): Promise<ChronosHandlers> {
  const api: Record<string, ApiHandler> = {};
  for (const route of routes) {
    api[route.handler] = overrides.api?.[route.handler] ?? importedOnFirstCall(`api/${route.handler}`);
  }
  return {
    api,
    authorizer: overrides.authorizer ?? (await importHandler<AuthorizerHandler>('authorizer')),
    scanner: overrides.scanner ?? (await importHandler<ScannerHandler>('scanner')),
    executor: overrides.executor ?? (await importHandler<SqsHandler>('executor')),
    completion: overrides.completion ?? (await importHandler<StreamHandler>('completion')),
    deadLetter: overrides.deadLetter ?? (await importHandler<SqsHandler>('dead-letter')),
    notifier: overrides.notifier ?? (await importHandler<SqsHandler>('notifier')),
    streamFailures: overrides.streamFailures ?? (await importHandler<SqsHandler>('stream-failures')),
  };
}

/** True when loading with these overrides imports at least one real module. */
export function needsRealHandlers(routes: readonly Route[], overrides: HandlerOverrides = {}): boolean {
  const { api, ...others } = overrides;
  return (
    routes.some((route) => !api?.[route.handler]) ||
    (['authorizer', 'scanner', 'executor', 'completion', 'deadLetter', 'notifier', 'streamFailures'] as const).some(
      (name) => !others[name],
    )
  );
}

/**
 * An API function's module, imported at its first request, as Lambda loads a function's code at its
 * first invocation: the local API serves some sixty routes (each its own function on AWS), a test
 * or an `npm start` session calls a few, and importing them all (seven compile a body schema) cost
 * every start about a quarter of a second of CPU (measured in a start-and-stop test file). A failed import is tried again at the next request, as
 * Lambda retries a failed init.
 */
function importedOnFirstCall(name: string): ApiHandler {
  let loading: Promise<ApiHandler> | undefined;
  return async (event, context) => {
    loading ??= importHandler<ApiHandler>(name).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return (await loading)(event, context);
  };
}

async function importHandler<T>(name: string): Promise<T> {
  // @vite-ignore: the name is data (ROUTES); vitest must leave this import to runtime resolution.
  // In an invocation scope of its own, as Lambda's init phase: a module that keeps per-invocation
  // state at load (Powertools' BatchProcessor) would otherwise fail to load once an earlier
  // invocation has installed the shared store (a component started after the API has answered).
  const module = (await runInInvocationScope(`init-${name}`, () => import(/* @vite-ignore */ `#handlers/${name}`))) as {
    handler?: unknown;
  };
  if (typeof module.handler !== 'function')
    throw new Error(`functions/handlers/${name}.ts exports no handler function`);
  // Middy-wrapped handlers take (event, context) like any async Lambda handler.
  return module.handler as T;
}
