import { monotonicFactory } from 'ulid';
import type { IdGenerator } from '#core/ports';

/** ULIDs: sortable by creation time, and unique even within one millisecond. */
export function ulidIds(): IdGenerator {
  const next = monotonicFactory();
  return { next: (now) => next(now) };
}
