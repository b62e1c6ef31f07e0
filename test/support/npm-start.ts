/**
 * `npm start` as a newcomer runs it: a real npm process in the repository, its output collected,
 * and its whole process tree found through /proc, so a test can signal one process and check that
 * none of the others outlives it and no port stays bound.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

const REPOSITORY = fileURLToPath(new URL('../..', import.meta.url));
/**
 * What the runtime reads, cleared so that the caller's settings do not leak in: vitest's
 * POWERTOOLS_LOG_LEVEL=WARN among them, since tests read the handlers' INFO lines as a newcomer sees them.
 */
const RUNTIME_VARIABLES = [
  'PORT',
  'HOST',
  'CHRONOS_DATA_DIR',
  'SECRETS_LOCAL_KEY',
  'CHRONOS_LOCAL_PORTS',
  'POWERTOOLS_LOG_LEVEL',
];

export interface NpmStart {
  child: ChildProcess;
  /** npm's pid, also its process group (it is started detached, as a terminal's foreground job). */
  pid: number;
  output(): string;
  /** Resolves with the first match in the output so far or to come; rejects on exit or timeout. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnNpmStart(args: readonly string[], env: Record<string, string>): NpmStart {
  const base = { ...process.env };
  for (const name of RUNTIME_VARIABLES) delete base[name];
  const child = spawn('npm', ['start', ...(args.length > 0 ? ['--', ...args] : [])], {
    cwd: REPOSITORY,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    pid: child.pid as number,
    output: () => output,
    exited,
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (!match) return;
          done();
          resolve(match);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${output}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then(() => {
          if (!listeners.has(check)) return;
          check();
          if (!listeners.has(check)) return;
          done();
          reject(new Error(`npm start exited before ${pattern}; output:\n${output}`));
        });
        check();
      }),
  };
}

/** State and parent pid of a task (`/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat`), undefined once gone. */
function statOf(path: string): { state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: state as string, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/**
 * Parent pid of a live process, or undefined once it is gone. A zombie main thread is not enough
 * to call it gone: while the rest of a JVM is still exiting (its sockets still open), its thread
 * group leader can already be a zombie. Gone is when no thread of it is left running.
 */
function parentOf(pid: number): number | undefined {
  const main = statOf(`/proc/${pid}/stat`);
  if (!main) return undefined;
  if (main.state !== 'Z') return main.ppid;
  try {
    const running = readdirSync(`/proc/${pid}/task`).some((tid) => {
      const state = statOf(`/proc/${pid}/task/${tid}/stat`)?.state;
      return state !== undefined && state !== 'Z';
    });
    return running ? main.ppid : undefined;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  return parentOf(pid) !== undefined;
}

/** Every live descendant of `root`, whatever process group or session it moved to. */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = parentOf(Number(entry));
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** True when nothing accepts a connection on 127.0.0.1:port. */
export async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/** Polls until `condition` holds; returns whether it did within `timeoutMs`. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Last resort after a test: SIGKILL whatever of the tree is still alive (pids this test started). */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** The ports the banner names: the API's and each emulator's. */
export function bannerPorts(output: string): number[] {
  const section = output.slice(output.indexOf('Chronos is running.'));
  const api = section.match(/API\s+http:\/\/[^:\s]+:(\d+)/);
  const emulators = [...section.matchAll(/(?:DynamoDB|SQS|CloudWatch)\s+http:\/\/127\.0\.0\.1:(\d+)/g)];
  return [api?.[1], ...emulators.map((m) => m[1])].filter(Boolean).map(Number);
}
