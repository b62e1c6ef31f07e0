/** A workflow run's tasks by status, in the order a run moves through them: `3 SUCCEEDED, 1 SKIPPED`. */
import type { TaskStatus } from '../../api/workflow-types.ts';

const ORDER: readonly TaskStatus[] = [
  'SUCCEEDED',
  'RUNNING',
  'QUEUED',
  'PENDING',
  'FAILED',
  'TIMED_OUT',
  'DEAD_LETTERED',
  'SKIPPED',
  'CANCELLED',
];

export function taskCountsText(counts: Partial<Record<TaskStatus, number>>): string {
  const known = ORDER.filter((status) => (counts[status] ?? 0) > 0).map((status) => `${counts[status]} ${status}`);
  const other = Object.entries(counts)
    .filter(([status, count]) => !ORDER.includes(status as TaskStatus) && (count ?? 0) > 0)
    .map(([status, count]) => `${count} ${status}`);
  return [...known, ...other].join(', ') || 'no tasks';
}
