/**
 * The bench's HTTP target (test/bench/target-process.ts) in its own process, for tests that judge
 * arrival times: in the test's process the local runtime's work shares the target's event loop,
 * and a batch of executor work can hold several arrivals back and stamp them together. Answers 200
 * at once (`?workMs=<n>`: n ms later); records each arrival before the body is read.
 */
import { fileURLToPath } from 'node:url';
import { type ChildHandle, startChild } from '../bench/child-process.ts';

const SCRIPT = fileURLToPath(new URL('../bench/target-process.ts', import.meta.url));

export interface ArrivedCall {
  /** Arrival, epoch ms. */
  at: number;
  idempotencyKey: string;
  path: string;
}

export interface ProcessTarget {
  url(path: string): string;
  /** Calls whose path (without query) is `path`. */
  callsTo(path: string): Promise<ArrivedCall[]>;
  /** Resolves once `count` calls to `path` have arrived, or rejects after `timeoutMs`. */
  waitForCalls(path: string, count: number, timeoutMs: number): Promise<ArrivedCall[]>;
  close(): Promise<void>;
}

export async function startProcessTarget(): Promise<ProcessTarget> {
  const child: ChildHandle<{ url: string }> = await startChild(SCRIPT);
  const callsTo = async (path: string) =>
    (await child.request<Array<[number, string, string]>>('calls'))
      .filter(([, , url]) => url.split('?')[0] === path)
      .map(([at, idempotencyKey, url]) => ({ at, idempotencyKey, path: url }));
  return {
    url: (path) => `${child.ready.url}${path}`,
    callsTo,
    async waitForCalls(path, count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const calls = await callsTo(path);
        if (calls.length >= count) return calls;
        if (Date.now() > deadline)
          throw new Error(`${calls.length} of ${count} calls to ${path} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: () => child.stop(),
  };
}
