/**
 * Each local function's deployed environment, enforced: the names of the variables the synthesized
 * template gives the function. All local functions share one process and one environment
 * (function-environment.ts), so a handler reading a variable its deployed function lacks would
 * work here and answer 500 on AWS ("Environment variable … is not set"). With this check on, a
 * required read (requiredEnv) inside an invocation fails here the same way.
 *
 * Values a handler builds once and keeps (functions/handlers/built-once.ts) are checked again, with
 * the required reads they were built from, whenever another function reuses them. An optional read
 * (optionalEnv, intEnv, listEnv) of a variable the function is not given reads as unset, so its
 * default applies as on AWS. Not checked: reads outside any invocation (module load, provisioning,
 * the pollers), reads straight from process.env, and a value a handler module keeps itself (the
 * executor's shared dependencies).
 */
import { registerOptionalEnvCheck, registerRequiredEnvCheck } from '#adapters/environment';
import { currentFunctionName } from '../invoke-store.ts';
import type { SynthesizedStacks } from './synthesized-stacks.ts';

/** By local function name: the names of its deployed variables. */
export type FunctionVariables = ReadonlyMap<string, ReadonlySet<string>>;

/** The variable names the stateless template gives each local function. */
export function functionVariablesOf(stacks: SynthesizedStacks): FunctionVariables {
  const variables = new Map<string, ReadonlySet<string>>();
  for (const [name, { functionLogicalId }] of Object.entries(stacks.functions)) {
    const resource = stacks.stateless.Resources?.[functionLogicalId] as
      | { Properties?: { Environment?: { Variables?: Record<string, unknown> } } }
      | undefined;
    variables.set(name, new Set(Object.keys(resource?.Properties?.Environment?.Variables ?? {})));
  }
  return variables;
}

/** The error a deployed function gets for a variable it is not given. */
export class UndeployedVariableError extends Error {
  constructor(variable: string, functionName: string) {
    super(`Environment variable ${variable} is not set (deployed, the ${functionName} function is not given it)`);
    this.name = 'UndeployedVariableError';
  }
}

/** A local Chronos instance's table, and every variable any of its deployed functions is given. */
interface Enforced {
  variables: FunctionVariables;
  deployedAnywhere: ReadonlySet<string>;
}

/** The tables of the local Chronos instances of this process; the last started one is enforced. */
const enforced: Enforced[] = [];

/** Refuses, from now on, a required read of a variable the invoked function is not given; returns the stop. */
export function enforceFunctionEnvironments(variables: FunctionVariables): () => void {
  const entry = { variables, deployedAnywhere: new Set([...variables.values()].flatMap((names) => [...names])) };
  enforced.push(entry);
  registerRequiredEnvCheck(checkRead);
  registerOptionalEnvCheck(mayReadOptional);
  return () => {
    const index = enforced.indexOf(entry);
    if (index >= 0) enforced.splice(index, 1);
    if (enforced.length === 0) {
      registerRequiredEnvCheck(undefined);
      registerOptionalEnvCheck(undefined);
    }
  };
}

/**
 * An optional variable the invoked function is not given deployed reads as unset, as on AWS (its
 * default applies) — unless no deployed function is given it: then it is a setting of the local
 * runtime alone (loopback targets, its own ports), seen by every local function.
 */
function mayReadOptional(variable: string): boolean {
  const invoked = invokedFunction();
  if (!invoked || invoked.given.has(variable)) return true;
  return !invoked.deployedAnywhere.has(variable);
}

/** The invoked function's deployed variables, when a function is invoked and the template names it. */
function invokedFunction():
  | { name: string; given: ReadonlySet<string>; deployedAnywhere: ReadonlySet<string> }
  | undefined {
  const name = currentFunctionName();
  const table = enforced.at(-1);
  const given = name === undefined ? undefined : table?.variables.get(name);
  return name === undefined || table === undefined || given === undefined
    ? undefined
    : { name, given, deployedAnywhere: table.deployedAnywhere };
}

/** Refused reads not yet taken: many are made on best-effort paths that log the error and go on. */
const refused: UndeployedVariableError[] = [];

/** The reads refused since the last call (the test suite fails a test that made any). */
export function takeRefusedReads(): UndeployedVariableError[] {
  return refused.splice(0);
}

function checkRead(variable: string): void {
  const invoked = invokedFunction();
  if (!invoked || invoked.given.has(variable)) return;
  const error = new UndeployedVariableError(variable, invoked.name);
  refused.push(error);
  throw error;
}
