/**
 * One bad record never holds up its batch or its stream shard. A record whose failure is its own
 * (its image cannot be read, or the store refuses what it leads to: job-faults.ts) fails the same
 * way on every retry, so retrying it only delays the records behind it and finally drops them
 * with it to the on-failure destination. Such a record is set aside instead: logged with what
 * identifies it, counted (RecordsSetAside, alarmed), and reported as processed. Any other failure
 * is thrown, so the partial-batch response retries it.
 */
import { isOwnFailure, reasonOf } from '#core/use-cases/job-faults';
import { logger } from './logger.ts';
import { MetricUnit, metrics } from './observability.ts';

export const SET_ASIDE_METRIC = 'RecordsSetAside';

/** Logs and counts a record set aside by `handler` (its ids in `context`). */
export function setAside(handler: string, error: unknown, context: Record<string, unknown>): void {
  logger.error('record set aside: it can never succeed', { handler, ...context, reason: reasonOf(error) });
  metrics.addMetric(SET_ASIDE_METRIC, MetricUnit.Count, 1);
}

/** Runs `work`; a failure of the record's own is set aside, any other is thrown for a retry. */
export async function orSetAside(
  handler: string,
  context: Record<string, unknown>,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!isOwnFailure(error)) throw error;
    setAside(handler, error, context);
  }
}

/**
 * The message a record carries, read by `parse`; undefined for a record that `isMalformed` says
 * can never be read: it would fail the same way on every receive, so it is set aside (logged,
 * counted, alarmed) and acknowledged at once instead of going round until the dead-letter queue.
 */
export function readOrSetAside<T>(
  handler: string,
  record: { messageId: string },
  parse: () => T,
  isMalformed: (error: unknown) => boolean,
): T | undefined {
  try {
    return parse();
  } catch (error) {
    if (!isMalformed(error)) throw error;
    setAside(handler, error, { messageId: record.messageId });
    return undefined;
  }
}
