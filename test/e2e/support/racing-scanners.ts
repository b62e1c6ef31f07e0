/**
 * Scanners that really race. `LocalChronos.invokeScanner()` chains every scan after the one in
 * progress, as the EventBridge timer does, so calling it four times at once runs four scans one
 * after another: no race at all. Here each scanner is its own invocation of the real scanner
 * handler (the module the local runtime loaded), started together, as four Lambda instances would
 * be; every conditional put of a run is recorded with the scanner that attempted it, so a test can
 * show that the race happened (several scanners put the same run) before trusting its outcome.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Run } from '#core/model';
import { invokeLambda } from '#local/lambda-context';
import { type ScannerHandler, scheduledEvent } from '#local/scanner-timer';

/** One conditional put of a run, by one racing scanner. */
export interface RunPutAttempt {
  scanner: number;
  runId: string;
  jobId: string;
  created: boolean;
}

/** One racing scanner's invocation: when it ran and what the handler answered. */
export interface ScannerPass {
  scanner: number;
  startedAt: number;
  endedAt: number;
  materialized: number;
}

export interface RacingScanners {
  /** Runs `count` scanner invocations at once; resolves with each one's pass and the puts they attempted. */
  race(count: number): Promise<{ passes: ScannerPass[]; attempts: RunPutAttempt[] }>;
  /** Puts the run repository back as it was. */
  restore(): void;
}

type CreateIfAbsent = (run: Run, options?: { sweepAt?: number }) => Promise<{ created: boolean }>;

/**
 * Must be called after startLocalChronos (the handlers' environment is set then). Wraps the
 * scanner's run repository (one per process, see functions/handlers/wiring.ts) to record the puts
 * made inside a racing scanner; puts made anywhere else (the API, retries) are not recorded.
 */
export async function racingScanners(): Promise<RacingScanners> {
  const { handler } = (await import('#handlers/scanner')) as { handler: ScannerHandler };
  const { runRepository } = await import('#handlers/wiring');
  const repository = runRepository() as unknown as { createIfAbsent: CreateIfAbsent };
  const original = repository.createIfAbsent;
  const scannerOfCall = new AsyncLocalStorage<number>();
  let attempts: RunPutAttempt[] = [];
  repository.createIfAbsent = async function recorded(this: unknown, run, options) {
    const result = await original.call(this, run, options);
    const scanner = scannerOfCall.getStore();
    if (scanner !== undefined) attempts.push({ scanner, runId: run.runId, jobId: run.jobId, created: result.created });
    return result;
  };

  return {
    race: async (count) => {
      attempts = [];
      const passes = await Promise.all(
        Array.from({ length: count }, (_, scanner) =>
          scannerOfCall.run(scanner, async (): Promise<ScannerPass> => {
            const startedAt = Date.now();
            const result = (await invokeLambda(handler, scheduledEvent(new Date(), 'us-east-1', 'race'), {
              // Concurrent invocations of the one scanner function, as on AWS: local IAM checks the scanner's role.
              functionName: 'scanner',
              timeoutSeconds: 50,
            })) as { materialized: number };
            return { scanner, startedAt, endedAt: Date.now(), materialized: result.materialized };
          }),
        ),
      );
      return { passes, attempts };
    },
    restore: () => {
      repository.createIfAbsent = original;
    },
  };
}
