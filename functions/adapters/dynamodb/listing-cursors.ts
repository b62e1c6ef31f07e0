/**
 * What the cursor of each listing must look like (cursor.ts checks it): the key attributes of the
 * table or index the listing reads, the caller's partition, and for run listings a sort key in the
 * runs-table layout (`<13 digits>#<3 digits>`, run-item.ts) inside the query's range.
 */
import type { CursorSpec } from './cursor.ts';
import { JOBS_TABLE, RUNS_TABLE } from './table-definitions.ts';

/**
 * A run's sort key: 13-digit occurrence, then its attempt, 001 to 999. Attempt 000 is the lower
 * bound of a job's key range, never a run: as a start key DynamoDB refuses it as outside the query.
 */
const RUN_SORT_KEY = /^\d{13}#(?!000)\d{3}$/;
const { deadLetterIndex } = RUNS_TABLE;

/** `GET /v1/jobs`: a key of the tenant's own partition of the jobs table. */
export function jobsCursor(tenantId: string): CursorSpec {
  return {
    keys: { [JOBS_TABLE.partitionKey]: 'string', [JOBS_TABLE.sortKey]: 'string' },
    pinned: { [JOBS_TABLE.partitionKey]: tenantId },
  };
}

/** `GET /v1/jobs/{id}/runs`: a run key of the job's partition within [lowSortKey, highSortKey]. */
export function runsOfJobCursor(partition: string, lowSortKey: string, highSortKey: string): CursorSpec {
  return {
    keys: { [RUNS_TABLE.partitionKey]: 'string', [RUNS_TABLE.sortKey]: 'string' },
    pinned: { [RUNS_TABLE.partitionKey]: partition },
    accepts: (key) => {
      const sortKey = String(key[RUNS_TABLE.sortKey]);
      return RUN_SORT_KEY.test(sortKey) && sortKey >= lowSortKey && sortKey <= highSortKey;
    },
  };
}

/** `GET /v1/dead-letters`: a key of the dead-letter index in the tenant's partition, of one of its runs. */
export function deadLettersCursor(tenantId: string): CursorSpec {
  return {
    keys: {
      [RUNS_TABLE.partitionKey]: 'string',
      [RUNS_TABLE.sortKey]: 'string',
      [deadLetterIndex.partitionKey]: 'string',
      [deadLetterIndex.sortKey]: 'instant',
    },
    pinned: { [deadLetterIndex.partitionKey]: tenantId },
    accepts: (key) =>
      String(key[RUNS_TABLE.partitionKey]).startsWith(`${tenantId}#`) &&
      RUN_SORT_KEY.test(String(key[RUNS_TABLE.sortKey])),
  };
}
