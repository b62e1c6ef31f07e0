/**
 * The due-index page the scanner reads, item by item. The document client unmarshalls a whole
 * response at once and throws for the page when one item holds a number no JS number can hold
 * (old data, a bug): one such job would then fail its whole shard on every pass, for good. So the
 * page is read raw and each item unmarshalled on its own; an item that cannot be is handed over
 * as `unreadable`, with its keys and version read as strings, for the scanner to quarantine.
 */
import { type AttributeValue, QueryCommand, type QueryCommandOutput } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DueJob } from '#core/ports';
import { jobOfItem } from './job-item.ts';
import { JOBS_TABLE } from './table-definitions.ts';

const { dueIndex } = JOBS_TABLE;

/** Jobs in `shard` due at or before `until`, earliest first; unreadable items marked as such. */
export async function readDueItems(
  client: DynamoDBDocumentClient,
  tableName: string,
  shard: string,
  until: number,
  limit: number,
): Promise<DueJob[]> {
  // A command of the plain client, sent through the document client's connection: no unmarshalling.
  const { Items = [] } = (await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: dueIndex.name,
      KeyConditionExpression: '#shard = :shard AND #next <= :until',
      ExpressionAttributeNames: { '#shard': dueIndex.partitionKey, '#next': dueIndex.sortKey },
      ExpressionAttributeValues: { ':shard': { S: shard }, ':until': { N: String(until) } },
      Limit: limit,
    }) as never,
  )) as QueryCommandOutput;
  return Items.map((item) => dueJobOf(item, until));
}

function dueJobOf(item: Record<string, AttributeValue>, until: number): DueJob {
  try {
    return jobOfItem<DueJob>(unmarshall(item));
  } catch (error) {
    const raw = jobOfItem<Record<string, unknown>>(unmarshall(item, { wrapNumbers: true }));
    const nextFireAt = Number(String(raw.nextFireAt));
    return {
      ...(raw as unknown as DueJob),
      tenantId: String(raw.tenantId),
      jobId: String(raw.jobId),
      // The condition of the quarantine write compares it as stored (a number given as its string).
      version: raw.version as unknown as number,
      // The index key: a readable number whenever the item is in this window.
      nextFireAt: Number.isSafeInteger(nextFireAt) ? nextFireAt : until,
      unreadable: `the stored job cannot be read: ${(error as Error).message}`,
    };
  }
}
