/**
 * The executor's call of an async job: it carries `Chronos-Callback-Url` (the API's callback
 * routes under a token bound to this attempt: core/async/callback-token.ts) and, on a retry whose
 * earlier attempt left a checkpoint, `Chronos-Checkpoint: present` (the worker reads it with the
 * callback GET). A 202 from the target is recorded as the run's acceptance (accept-async-run.ts)
 * instead of an outcome.
 */
import { hasEarlierCheckpoint } from '../../async/callback-state.ts';
import { sealCallbackToken } from '../../async/callback-token.ts';
import type { AsyncRunStore, CallbackKeys } from '../../async/ports.ts';
import type { RunKey } from '../../model.ts';

export const CALLBACK_URL_HEADER = 'Chronos-Callback-Url';
export const CHECKPOINT_HEADER = 'Chronos-Checkpoint';
/** The answer by which a target takes an async job's work. */
export const ACCEPTED_STATUS = 202;

/** What the executor needs for async jobs. */
export interface AsyncCallDeps {
  store: AsyncRunStore;
  keys: CallbackKeys;
  /** The API's public base URL, without a trailing slash. */
  baseUrl: () => string;
  /** The deadline index's shard count (the due shards). */
  shardCount: number;
}

/** The callback URL of one attempt. */
export async function callbackUrlOf(deps: Pick<AsyncCallDeps, 'keys' | 'baseUrl'>, key: RunKey): Promise<string> {
  const token = sealCallbackToken(key, await deps.keys.keys());
  return `${deps.baseUrl()}/v1/callbacks/${token}`;
}

/** The headers an async job's call carries besides the usual ones. */
export async function asyncCallHeaders(deps: AsyncCallDeps, key: RunKey): Promise<Record<string, string>> {
  const headers: Record<string, string> = { [CALLBACK_URL_HEADER]: await callbackUrlOf(deps, key) };
  // Only a retry can find an earlier attempt's checkpoint: the first attempt reads nothing more.
  if (key.attempt > 1 && hasEarlierCheckpoint(await deps.store.occurrence(key), key.attempt))
    headers[CHECKPOINT_HEADER] = 'present';
  return headers;
}
