/**
 * The sparse deadline index: an accepted async run that is RUNNING carries `deadlineShard` and
 * `deadlineAt`, the earliest of its heartbeat deadline, its max-duration deadline and the end of
 * its cancel grace. The scanner queries each shard for `deadlineAt < now` and decides each run
 * found (deadline-decision.ts): missed heartbeats are found within one scanner interval of their
 * deadline, with no table scan and no Lambda held open. Every run leaves the index with the write
 * that ends it, so the index only ever holds runs in flight.
 *
 * The shards are the due-index's (due-shard.ts), by job id: the scanner already walks them.
 */
import { dueShardOf } from '../due-shard.ts';
import type { AsyncRunState } from './async-run.ts';

/** The index's key, for the runs table (the adapters copy it into table-definitions.ts). */
export const DEADLINE_INDEX = { name: 'deadline-index', partitionKey: 'deadlineShard', sortKey: 'deadlineAt' } as const;

type Deadlines = Pick<
  AsyncRunState,
  'acceptedAt' | 'heartbeatDeadline' | 'maxDurationDeadline' | 'cancelRequestedAt' | 'settings'
>;

/** When the cancel grace of a run ends, or undefined when no cancel was requested. */
export function cancelGraceEndOf(run: Pick<AsyncRunState, 'cancelRequestedAt' | 'settings'>): number | undefined {
  return run.cancelRequestedAt === undefined
    ? undefined
    : run.cancelRequestedAt + run.settings.cancelGraceSeconds * 1000;
}

/** The earliest deadline of an accepted run, or undefined for a run not accepted yet (its executor's lease covers it). */
export function deadlineAtOf(run: Deadlines): number | undefined {
  if (run.acceptedAt === undefined) return undefined;
  const deadlines = [run.heartbeatDeadline, run.maxDurationDeadline, cancelGraceEndOf(run)].filter(
    (at): at is number => at !== undefined,
  );
  return deadlines.length === 0 ? undefined : Math.min(...deadlines);
}

/** The deadline-index attributes of a RUNNING run in this state, or undefined when it belongs out of the index. */
export function deadlineIndexEntry(
  run: Deadlines & Pick<AsyncRunState, 'jobId'>,
  shardCount: number,
): { deadlineShard: string; deadlineAt: number } | undefined {
  const deadlineAt = deadlineAtOf(run);
  return deadlineAt === undefined ? undefined : { deadlineShard: dueShardOf(run.jobId, shardCount), deadlineAt };
}
