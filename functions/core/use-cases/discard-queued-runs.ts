/**
 * Un-materializes a job's future occurrences when a pause or a reschedule makes them obsolete:
 * runs scheduled after `after` that no executor has claimed yet (still QUEUED) are deleted. Their
 * messages then find no run and make no call; and since run ids are deterministic, materializing
 * the same occurrence again later (after a resume) creates a fresh run instead of finding a dead
 * one. A run already claimed (released up to a second before its due time) still runs.
 */
import type { RunKey } from '../model.ts';
import type { RunRepository } from '../ports.ts';

const PAGE = 100;

export interface Discarded {
  count: number;
  /** The earliest discarded occurrence; undefined when none was. */
  earliest?: number;
}

/** Deletes the job's QUEUED runs scheduled after `after`; returns how many and the earliest. */
export async function discardQueuedRunsAfter(
  runs: RunRepository,
  job: { tenantId: string; jobId: string },
  after: number,
): Promise<Discarded> {
  // Collect first, then delete: deleting while paging would move a filtered listing under the cursor.
  const queued: RunKey[] = [];
  let cursor: string | undefined;
  do {
    const page = await runs.listByJob(job.tenantId, job.jobId, {
      status: 'QUEUED',
      from: after + 1,
      limit: PAGE,
      ...(cursor ? { cursor } : {}),
    });
    queued.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  const deleted = await Promise.all(queued.map(async (run) => ((await runs.discardQueued(run)) ? run : undefined)));
  const times = deleted.flatMap((run) => (run ? [run.scheduledFor] : []));
  return times.length === 0 ? { count: 0 } : { count: times.length, earliest: Math.min(...times) };
}
