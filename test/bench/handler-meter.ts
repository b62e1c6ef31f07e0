/**
 * Wraps the real handler modules for startLocalChronos' `handlers` option: counts invocations,
 * records and wall time per function, and can hold a function's invocations back (a closed gate)
 * or run them one at a time with their process CPU measured (serial mode, for the CPU probe).
 * The real modules are imported on first use, after startLocalChronos has set the environment,
 * exactly as its own loader would import them.
 */
import type { LambdaHandler } from '#local/lambda-context';

export interface FunctionStats {
  invocations: number;
  records: number;
  failures: number;
  /** Wall time of all invocations (what Lambda bills), ms. */
  wallMs: number;
  /** Serial mode only: CPU of the measured invocations minus the idle background rate, ms. */
  cpuMs: number;
  cpuRecords: number;
}

type Loader<E, R> = () => Promise<LambdaHandler<E, R>>;

/** Counts and optionally gates or serializes invocations per function name. */
export class HandlerMeter {
  readonly stats: Record<string, FunctionStats> = {};
  private readonly gates = new Map<string, { opened: Promise<void>; open: () => void }>();
  private readonly serial = new Map<string, { idleCpuMsPerMs: number; queue: Promise<void> }>();

  /** Holds every invocation of `name` until open() is called for it. */
  close(name: string): void {
    let open = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.gates.set(name, { opened, open });
  }

  /**
   * Lets `name`'s invocations through; with `serialIdleCpuMsPerMs` they run one at a time and the
   * process CPU each uses, minus that idle background rate over its wall time, is recorded.
   */
  open(name: string, serialIdleCpuMsPerMs?: number): void {
    if (serialIdleCpuMsPerMs !== undefined) {
      this.serial.set(name, { idleCpuMsPerMs: serialIdleCpuMsPerMs, queue: Promise.resolve() });
    }
    this.gates.get(name)?.open();
    this.gates.delete(name);
  }

  /** A handler that counts and delegates to the module `load` imports. */
  wrap<E, R>(name: string, load: Loader<E, R>, recordsOf: (event: E) => number = () => 1): LambdaHandler<E, R> {
    let real: Promise<LambdaHandler<E, R>> | undefined;
    const stats: FunctionStats = { invocations: 0, records: 0, failures: 0, wallMs: 0, cpuMs: 0, cpuRecords: 0 };
    this.stats[name] = stats;
    return async (event, context) => {
      await this.gates.get(name)?.opened;
      real ??= load();
      const handler = await real;
      const records = recordsOf(event);
      const serial = this.serial.get(name);
      if (!serial) return this.timed(stats, records, () => handler(event, context));
      const turn = serial.queue.then(async () => {
        const cpuBefore = process.cpuUsage();
        const startedAt = performance.now();
        try {
          return await this.timed(stats, records, () => handler(event, context));
        } finally {
          const cpu = process.cpuUsage(cpuBefore);
          const wall = performance.now() - startedAt;
          stats.cpuMs += (cpu.user + cpu.system) / 1000 - serial.idleCpuMsPerMs * wall;
          stats.cpuRecords += records;
        }
      });
      serial.queue = turn.then(
        () => undefined,
        () => undefined,
      );
      return turn;
    };
  }

  private async timed<R>(stats: FunctionStats, records: number, call: () => Promise<R>): Promise<R> {
    const startedAt = performance.now();
    stats.invocations++;
    stats.records += records;
    try {
      return await call();
    } catch (error) {
      stats.failures++;
      throw error;
    } finally {
      stats.wallMs += performance.now() - startedAt;
    }
  }
}
