/**
 * The chaos run's worker processes: forks them, keeps track of what each one holds (the run ids
 * of its batches in progress, whether a scan is running), SIGKILLs and restarts them, and keeps a
 * record of every kill with what the killed process held at the moment it died.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { openSync } from 'node:fs';
import type { WorkerMessage, WorkerRole, WorkerSettings } from './shared-options.ts';

export interface Kill {
  at: number;
  role: WorkerRole;
  slot: number;
  pid: number;
  /** Run ids of the batches the process had started and not finished when it died. */
  heldRunIds: string[];
  /** API: the names of the jobs whose create requests it had received and not answered. */
  heldJobNames?: string[];
  /** For a scanner: whether a scan had started and not finished. */
  scanInProgress: boolean;
  /** Why it was killed (`random` for the executor schedule, `at-most-once-call` for its aimed kill, `mid-scan` for the scanner, a HoldMode for the others). */
  reason: string;
}

export interface Worker {
  role: WorkerRole;
  slot: number;
  process: ChildProcess;
  ready: Promise<void>;
  isReady: boolean;
  batches: Map<string, string[]>;
  /** API: the job names of the create requests in progress. */
  creates: Map<string, string[]>;
  scanInProgress: boolean;
}

const READY_TIMEOUT_MS = 60_000;

export class Fleet {
  readonly kills: Kill[] = [];
  readonly workers = new Map<string, Worker>();
  private readonly listeners: Array<(worker: Worker, message: WorkerMessage) => void> = [];
  private stopping = false;
  /** No worker outlives the coordinator, even when it dies without stopping the fleet. */
  private readonly killAll = () => {
    for (const worker of this.workers.values()) worker.process.kill('SIGKILL');
  };

  constructor(
    /** The bundled worker-process.ts (worker-bundle.ts). */
    private readonly workerScript: string,
    private readonly logFile: string,
    private readonly settingsOf: (role: WorkerRole, slot: number) => WorkerSettings,
  ) {
    process.once('exit', this.killAll);
  }

  /** Calls `listener` for every message of every worker. */
  onMessage(listener: (worker: Worker, message: WorkerMessage) => void): void {
    this.listeners.push(listener);
  }

  /** Forks the worker for `slot` of `role` (replacing any earlier one) and resolves once it is ready. */
  start(role: WorkerRole, slot: number): Worker {
    const log = openSync(this.logFile, 'a');
    const child = fork(this.workerScript, [JSON.stringify(this.settingsOf(role, slot))], {
      execArgv: [],
      stdio: ['ignore', log, log, 'ipc'],
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN' },
    });
    const worker: Worker = {
      role,
      slot,
      process: child,
      ready: Promise.resolve(),
      isReady: false,
      batches: new Map(),
      creates: new Map(),
      scanInProgress: false,
    };
    worker.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${role} ${slot} not ready in ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      timer.unref();
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${role} ${slot} exited (${code ?? signal}) before it was ready`));
      });
      child.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          clearTimeout(timer);
          worker.isReady = true;
          resolve();
        }
      });
    });
    worker.ready.catch(() => undefined);
    child.on('message', (message: WorkerMessage) => {
      if (message.type === 'batch-start') worker.batches.set(message.id, message.runIds);
      if (message.type === 'batch-start' && message.jobNames) worker.creates.set(message.id, message.jobNames);
      if (message.type === 'batch-end') worker.batches.delete(message.id);
      if (message.type === 'batch-end') worker.creates.delete(message.id);
      if (message.type === 'scan-start') worker.scanInProgress = true;
      if (message.type === 'scan-end') worker.scanInProgress = false;
      for (const listener of this.listeners) listener(worker, message);
    });
    child.on('exit', () => {
      if (!this.stopping && this.workers.get(key(role, slot)) === worker && !child.killed) {
        console.error(`[chaos] ${role} ${slot} (pid ${child.pid}) exited on its own`);
      }
    });
    this.workers.set(key(role, slot), worker);
    return worker;
  }

  /**
   * SIGKILLs the worker in `slot` and resolves with the kill record once the process is gone;
   * what it held is read after every message it sent before dying has arrived.
   */
  async kill(role: WorkerRole, slot: number, reason: string): Promise<Kill> {
    const worker = this.workers.get(key(role, slot));
    if (!worker?.process.pid) throw new Error(`no ${role} in slot ${slot}`);
    const at = Date.now();
    const closed = new Promise<void>((resolve) => worker.process.once('close', () => resolve()));
    worker.process.kill('SIGKILL');
    await closed;
    const kill: Kill = {
      at,
      role,
      slot,
      pid: worker.process.pid,
      heldRunIds: [...worker.batches.values()].flat(),
      ...(role === 'api' ? { heldJobNames: [...worker.creates.values()].flat() } : {}),
      scanInProgress: worker.scanInProgress,
      reason,
    };
    this.kills.push(kill);
    return kill;
  }

  /** Ends every worker (SIGKILL: nothing of theirs needs to finish any more). */
  async stop(): Promise<void> {
    this.stopping = true;
    process.off('exit', this.killAll);
    await Promise.all(
      [...this.workers.values()].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.process.exitCode !== null || worker.process.signalCode !== null) return resolve();
            worker.process.once('close', () => resolve());
            worker.process.kill('SIGKILL');
          }),
      ),
    );
  }
}

const key = (role: string, slot: number) => `${role}#${slot}`;
