/**
 * Runs the health check's probes in parallel, each bounded by a timeout, so one hung dependency
 * makes the answer say which one instead of making the whole request time out.
 */

/** `ok` passes; anything else fails and is named in the answer (`failing`: it answered, and reports a failure of its own). */
export type CheckState = 'ok' | 'unreachable' | 'timeout' | 'missing' | 'stale' | 'failing';

/** Probes one dependency; may stop its request when `signal` aborts (the check timed out). */
export type Probe = (signal: AbortSignal) => Promise<CheckState>;

export interface CheckReport {
  checks: Record<string, CheckState>;
  /** Names of the checks that did not answer `ok`, in the order they were given. */
  failing: string[];
}

/**
 * Runs every probe at once. A probe that throws is `unreachable`, one that has not settled after
 * `timeoutMs` is `timeout` (its signal is aborted so the SDK drops the request).
 */
export async function runChecks(
  probes: Record<string, Probe>,
  timeoutMs: number,
  onFailure: (name: string, error: unknown) => void = () => undefined,
): Promise<CheckReport> {
  const entries = await Promise.all(
    Object.entries(probes).map(
      async ([name, probe]) => [name, await runOne(name, probe, timeoutMs, onFailure)] as const,
    ),
  );
  const checks = Object.fromEntries(entries);
  return { checks, failing: entries.filter(([, state]) => state !== 'ok').map(([name]) => name) };
}

async function runOne(
  name: string,
  probe: Probe,
  timeoutMs: number,
  onFailure: (name: string, error: unknown) => void,
): Promise<CheckState> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      onFailure(name, new Error(`no answer within ${timeoutMs} ms`));
      resolve('timeout');
    }, timeoutMs);
  });
  const probed = probe(controller.signal).catch((error: unknown) => {
    // After the timeout the abort itself rejects the probe: already reported as `timeout`.
    if (!controller.signal.aborted) onFailure(name, error);
    return 'unreachable' as const;
  });
  try {
    return await Promise.race([probed, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
