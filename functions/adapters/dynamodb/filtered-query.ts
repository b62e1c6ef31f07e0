/**
 * One page of a Query that may carry a FilterExpression. DynamoDB applies `Limit` before the
 * filter, so a single request can return fewer matches than asked for (even none) while more
 * remain. This reads on with the remaining count until the page is full, the key range is
 * exhausted, or a read budget is spent; the cursor is the last key read, so the next page resumes
 * exactly there and no match is skipped or repeated.
 */
import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Page } from '#core/ports';
import { encodeCursor } from './cursor.ts';

/** Query requests one page may spend before it returns short, with a cursor, to bound its cost. */
export const MAX_READS_PER_PAGE = 5;

/** Reads up to `limit` matching items from `input` (without Limit/ExclusiveStartKey), starting after `start`. */
export async function queryFilteredPage<T = Record<string, unknown>>(
  client: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'Limit' | 'ExclusiveStartKey'>,
  limit: number,
  start: Record<string, unknown> | undefined,
): Promise<Page<T>> {
  const items: T[] = [];
  let lastKey = start;
  for (let reads = 0; reads < MAX_READS_PER_PAGE && items.length < limit; reads++) {
    const { Items = [], LastEvaluatedKey } = await client.send(
      new QueryCommand({
        ...input,
        Limit: limit - items.length,
        ...(lastKey ? { ExclusiveStartKey: lastKey } : {}),
      }),
    );
    items.push(...(Items as T[]));
    lastKey = LastEvaluatedKey;
    if (!lastKey) break;
  }
  const cursor = encodeCursor(lastKey);
  return cursor ? { items, cursor } : { items };
}
