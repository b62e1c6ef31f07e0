/**
 * What to do with a runs-stream batch the completion mapping gave up on. Lambda's on-failure
 * destination receives the batch's coordinates (shard, first and last sequence number), not its
 * records: they are read back from the stream, which keeps them 24 hours, and each run that had
 * just reached a terminal state is completed again through completeRun, which is idempotent (the
 * stream itself delivers records more than once). The report names every run, so each one ends
 * visibly: completed, failed again (to be retried), its own fault (never retried), or, when the
 * records are gone from the stream, a range an operator must look at.
 */
import type { CompletedRun, CompletionChange } from './complete-run.ts';
import { isOwnFailure, reasonOf } from './job-faults.ts';

/** The coordinates of a failed batch, as the on-failure record gives them. */
export interface FailedStreamBatch {
  streamArn: string;
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
}

/** The records of a range, or `gone` when the stream no longer holds its start (or its shard). */
export type StreamRangeRead<R> = { kind: 'read'; records: R[] } | { kind: 'gone' };

export interface RedriveStreamBatchDeps<R> {
  readRange(batch: FailedStreamBatch): Promise<StreamRangeRead<R>>;
  /** The run a record shows reaching a terminal state; undefined for any other record. */
  completedRunOf(record: R): CompletedRun | undefined;
  complete(run: CompletedRun): Promise<CompletionChange>;
}

export interface RunRedriven {
  run: CompletedRun;
  change: CompletionChange;
}
export interface RunNotRedriven {
  run: CompletedRun;
  reason: string;
  /** True when the failure is the run's own (it fails the same way every time): never retried. */
  ownFault: boolean;
}

export type StreamBatchRedrive =
  | { kind: 'gone' }
  | { kind: 'read'; records: number; redriven: RunRedriven[]; notRedriven: RunNotRedriven[] };

/** Reads the batch back and completes each of its terminal runs; one run's failure never stops the rest. */
export async function redriveStreamBatch<R>(
  deps: RedriveStreamBatchDeps<R>,
  batch: FailedStreamBatch,
): Promise<StreamBatchRedrive> {
  const read = await deps.readRange(batch);
  if (read.kind === 'gone') return read;
  const redriven: RunRedriven[] = [];
  const notRedriven: RunNotRedriven[] = [];
  for (const record of read.records) {
    const run = deps.completedRunOf(record);
    if (!run) continue;
    try {
      redriven.push({ run, change: await deps.complete(run) });
    } catch (error) {
      notRedriven.push({ run, reason: reasonOf(error), ownFault: isOwnFailure(error) });
    }
  }
  return { kind: 'read', records: read.records.length, redriven, notRedriven };
}

/** True when a failure may clear if tried again: some run failed for a reason not its own. */
export function worthRetrying(result: StreamBatchRedrive): boolean {
  return result.kind === 'read' && result.notRedriven.some((failure) => !failure.ownFault);
}
