/** BatchGetItem with its limits kept: at most 100 keys per request, unprocessed keys asked again. */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** BatchGetItem's limit of keys per request. */
export const KEYS_PER_BATCH_GET = 100;
/** Unprocessed keys (throttling) are asked again this many times, with a growing pause. */
const UNPROCESSED_RETRIES = 5;

/**
 * The items of these keys (at most KEYS_PER_BATCH_GET; missing items are simply absent). Throws
 * when keys are still unprocessed after the retries: the caller's read failed, not its items.
 */
export async function batchGetItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: Record<string, unknown>[],
  consistentRead = false,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let pending = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > UNPROCESSED_RETRIES) throw new Error(`${tableName}: ${pending.length} keys left unprocessed`);
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    const { Responses, UnprocessedKeys } = await client.send(
      new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: consistentRead } } }),
    );
    items.push(...(Responses?.[tableName] ?? []));
    pending = (UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  return items;
}
