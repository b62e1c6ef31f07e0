/**
 * Local IAM enforcement: an AWS SDK middleware on every client the handlers build
 * (registerClientMiddleware), which checks each call made inside a local invocation against the
 * policy of the invoked function's role (policy-table.ts) and fails it as AWS would. Calls made
 * outside any invocation (provisioning, the pollers, tests' own clients) are not checked.
 *
 * The hook stays registered for the process: clients are built once per process, when the
 * handler modules first need them, and must carry the middleware whichever local Chronos is
 * running then. What it enforces is the policy table of the local Chronos started last.
 */
import type { InitializeHandler, InitializeHandlerArguments, InitializeHandlerOutput } from '@smithy/types';
import { registerClientMiddleware } from '#adapters/aws-clients';
import { currentFunctionName } from '../invoke-store.ts';
import { AccessDeniedException } from './access-denied.ts';
import { type AwsService, authorizationRequests } from './aws-requests.ts';
import type { PolicyTable } from './policy-table.ts';

interface Enforcement {
  table: PolicyTable;
  log: (message: string) => void;
  /** Decisions already taken, by function, action and resource (requests without condition keys). */
  decisions: Map<string, boolean>;
}

const enforcements: Enforcement[] = [];
let hookRegistered = false;

/** Installs the middleware hook (once per process); must run before the handlers build clients. */
export function installIamHook(): void {
  if (hookRegistered) return;
  hookRegistered = true;
  registerClientMiddleware((service, stack) => {
    stack.add(iamMiddleware(service), { step: 'initialize', priority: 'high', name: 'chronosLocalIamEnforcement' });
  });
}

/** The middleware for clients of `service`: checks each call against the active policy table. */
export function iamMiddleware(service: AwsService) {
  return (next: InitializeHandler<object, object>, context: { commandName?: string }) =>
    checkedHandler(service, next, context);
}

/** Enforces `table` from now on; returns the function that stops it. */
export function enforceIam(table: PolicyTable, log: (message: string) => void): () => void {
  installIamHook();
  const enforcement: Enforcement = { table, log, decisions: new Map() };
  enforcements.push(enforcement);
  return () => {
    const index = enforcements.indexOf(enforcement);
    if (index >= 0) enforcements.splice(index, 1);
  };
}

function checkedHandler(
  service: AwsService,
  next: InitializeHandler<object, object>,
  context: { commandName?: string },
): InitializeHandler<object, object> {
  return (args: InitializeHandlerArguments<object>): Promise<InitializeHandlerOutput<object>> => {
    const enforcement = enforcements.at(-1);
    if (enforcement === undefined) return next(args);
    const functionName = currentFunctionName();
    if (functionName === undefined) return next(args);
    const denied = deniedCall(enforcement, functionName, service, context.commandName ?? '', args.input);
    if (denied) {
      enforcement.log(`IAM: ${denied.message}`);
      return Promise.reject(denied);
    }
    return next(args);
  };
}

function deniedCall(
  enforcement: Enforcement,
  functionName: string,
  service: AwsService,
  commandName: string,
  input: object,
): AccessDeniedException | undefined {
  const { table, decisions } = enforcement;
  const fn = table.functions.get(functionName);
  for (const request of authorizationRequests(service, commandName, input as Record<string, unknown>, table.arns)) {
    const cacheable = request.context === undefined || Object.keys(request.context).length === 0;
    const key = `${functionName}\n${request.action}\n${request.resource}`;
    let allowed = cacheable ? decisions.get(key) : undefined;
    if (allowed === undefined) {
      // A function the stack does not deploy has no role: nothing is allowed to it.
      allowed = fn?.policy.allows(request.action, request.resource, request.context) ?? false;
      if (cacheable) decisions.set(key, allowed);
    }
    if (!allowed) {
      return new AccessDeniedException({
        functionName,
        roleName: fn?.roleName ?? `no-role-for-${functionName}`,
        account: table.account,
        action: request.action,
        resource: request.resource,
      });
    }
  }
  return undefined;
}
