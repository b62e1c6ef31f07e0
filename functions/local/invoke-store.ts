/**
 * The per-invocation store the Lambda runtime provides when invocations share a process
 * (`globalThis.awslambda.InvokeStore`, read by Powertools' BatchProcessor and Logger). Installed
 * here, not via `InvokeStore.getInstanceAsync()`, because that caches whichever kind of store was
 * asked for first: the AWS SDK asks for one during provisioning, before AWS_LAMBDA_MAX_CONCURRENCY
 * is set, and gets the single-invocation kind that cannot keep concurrent invocations apart.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { InvokeStoreBase } from '@aws/lambda-invoke-store';

type Scope = Record<string | symbol, unknown>;

class ConcurrentInvokeStore extends InvokeStoreBase {
  readonly #storage = new AsyncLocalStorage<Scope>();

  getContext(): Scope | undefined {
    return this.#storage.getStore();
  }

  hasContext(): boolean {
    return this.#storage.getStore() !== undefined;
  }

  get<T = unknown>(key: string | symbol): T | undefined {
    return this.#storage.getStore()?.[key] as T | undefined;
  }

  set<T = unknown>(key: string | symbol, value: T): void {
    if (this.isProtectedKey(key)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    const scope = this.#storage.getStore();
    if (!scope) throw new Error('No context available');
    scope[key] = value;
  }

  run<T>(context: Scope, fn: () => T): T {
    return this.#storage.run(context, fn);
  }
}

let store: ConcurrentInvokeStore | undefined;

/** The local function an invocation scope belongs to (local IAM enforcement checks its calls). */
const FUNCTION_NAME = Symbol('chronos.local.functionName');

/**
 * Runs `fn` in a fresh invocation scope carrying `requestId` (and the invoked function's name),
 * installing the store on first use.
 */
export function runInInvocationScope<T>(requestId: string, fn: () => T, functionName?: string): T {
  store ??= new ConcurrentInvokeStore();
  globalThis.awslambda ??= {} as typeof globalThis.awslambda;
  if (globalThis.awslambda.InvokeStore !== store) globalThis.awslambda.InvokeStore = store;
  return store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: requestId, [FUNCTION_NAME]: functionName }, fn);
}

/** The function whose invocation the caller runs in; undefined outside any invocation. */
export function currentFunctionName(): string | undefined {
  return store?.get<string>(FUNCTION_NAME);
}
