/**
 * Runs a bench helper (HTTP target, fauxqs) in its own Node process, so its CPU is not counted
 * as the scheduler's and its event loop is not delayed by the scheduler's work. The child speaks
 * a tiny IPC protocol: it sends `{ type: 'ready', data }` once, then answers `{ id, what }`
 * requests with `{ id, data }`.
 */
import { type ChildProcess, fork } from 'node:child_process';

export interface ChildHandle<Ready> {
  ready: Ready;
  request<T>(what: string, arg?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** Forks `script` (TypeScript, through tsx) and resolves once it reports ready. */
export async function startChild<Ready>(
  script: string,
  args: string[] = [],
  timeoutMs = 30_000,
): Promise<ChildHandle<Ready>> {
  const child: ChildProcess = fork(script, args, {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} not ready within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    child.on('message', (message: { type: 'ready' | 'reply'; data?: unknown; id?: number; error?: string }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.data as Ready);
      } else if (message.type === 'reply' && message.id !== undefined) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (message.error) waiter?.reject(new Error(message.error));
        else waiter?.resolve(message.data);
      }
    });
  });
  return {
    ready,
    request: <T>(what: string, arg?: unknown) =>
      new Promise<T>((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, what, arg });
      }),
    stop: async () => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      });
    },
  };
}

/** For the child side: announces readiness and serves requests with `answer`. */
export function serveParent(ready: unknown, answer: (what: string, arg: unknown) => unknown | Promise<unknown>): void {
  process.on('message', async (message: { id: number; what: string; arg?: unknown }) => {
    try {
      process.send?.({ type: 'reply', id: message.id, data: await answer(message.what, message.arg) });
    } catch (error) {
      process.send?.({ type: 'reply', id: message.id, error: String(error) });
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ type: 'ready', data: ready });
}
