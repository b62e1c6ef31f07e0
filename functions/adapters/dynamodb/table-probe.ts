/**
 * Proves a table answers to this function's credentials: one GetItem of a key no item has, so a
 * probe costs one read unit and returns nothing (the health check reads every table this way).
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/** No tenant, job or monitoring item is ever written under this key. */
const ABSENT_KEY = '__health__';

export interface ProbedTable {
  name: string;
  partitionKey: string;
  sortKey: string;
}

export async function probeTable(
  client: DynamoDBDocumentClient,
  table: ProbedTable,
  abortSignal?: AbortSignal,
): Promise<void> {
  await client.send(
    new GetCommand({
      TableName: table.name,
      Key: { [table.partitionKey]: ABSENT_KEY, [table.sortKey]: ABSENT_KEY },
    }),
    abortSignal ? { abortSignal } : {},
  );
}
