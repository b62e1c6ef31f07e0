/**
 * How the DynamoDB adapters page a Query, for the in-memory fakes: the cursor is the base64url
 * LastEvaluatedKey the adapters issue (checked by the same cursor specs, so a bad one is the same
 * ValidationError), and a filtered page is read as queryFilteredPage reads it — up to
 * MAX_READS_PER_PAGE reads of the remaining count each, so a page may come back short with a cursor.
 */
import { type CursorSpec, decodeCursor, encodeCursor } from '#adapters/dynamodb/cursor';
import { MAX_READS_PER_PAGE } from '#adapters/dynamodb/filtered-query';
import type { Page } from '#core/ports';

export interface KeyedQuery<T> {
  /** Every item of the key range, in the order the Query reads them. */
  ordered: T[];
  /** The item's key as the Query's LastEvaluatedKey holds it. */
  keyOf: (item: T) => Record<string, string | number>;
  /** Whether `item` comes after the key of an earlier page in the Query's order. */
  isAfter: (item: T, start: Record<string, string | number>) => boolean;
  spec: CursorSpec;
  matches?: (item: T) => boolean;
}

/** One page of `query` from `cursor`: at most `limit` matches, and a cursor when the key range goes on. */
export function readPage<T>(query: KeyedQuery<T>, limit: number, cursor: string | undefined): Page<T> {
  const start = decodeCursor(cursor, query.spec);
  let remaining = start === undefined ? query.ordered : query.ordered.filter((item) => query.isAfter(item, start));
  const items: T[] = [];
  let lastRead: T | undefined;
  for (let reads = 0; reads < MAX_READS_PER_PAGE && items.length < limit && remaining.length > 0; reads++) {
    const read = remaining.slice(0, limit - items.length);
    remaining = remaining.slice(read.length);
    items.push(...read.filter((item) => query.matches?.(item) ?? true));
    lastRead = read.at(-1);
  }
  const next = remaining.length > 0 && lastRead !== undefined ? encodeCursor(query.keyOf(lastRead)) : undefined;
  return next === undefined ? { items: items.map(copy) } : { items: items.map(copy), cursor: next };
}

const copy = <T>(item: T): T => structuredClone(item);
