/**
 * Values a function builds once and keeps for every later invocation (clients, repositories,
 * settings). Deployed, each function builds its own from its own environment; the local runtime
 * runs every function in one process, so a value built under one function is reused by the others.
 * The required variables read while building are kept with the value and checked again on each use
 * (functions/local/aws-fidelity/function-environments.ts): reused by a function that is not given
 * them deployed, it fails here as it would fail to build there.
 */
import { recheckRequiredReads, withRequiredReads } from '#adapters/environment';

/** `build`'s value, made at the first call and returned by every later one. */
export function once<T>(build: () => T): () => T {
  let built: { value: T; reads: readonly string[] } | undefined;
  return () => {
    if (built === undefined) built = withRequiredReads(build);
    else recheckRequiredReads(built.reads);
    return built.value;
  };
}

/** An object made by `make` at the first use of any of its members, as `once`. */
export function lazily<T extends object>(make: () => T): T {
  const made = once(make);
  return new Proxy({} as T, {
    get(_, name) {
      const target = made();
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
