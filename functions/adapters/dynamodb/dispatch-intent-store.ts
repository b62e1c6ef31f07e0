/**
 * Dispatch intents in the metrics table, beside the scanner's heartbeats (the other state only
 * the scanner writes). One item per scanner page while its runs are being put and sent; the item
 * is small (a job key per job, about 40 bytes each), so writing and removing it costs a few write
 * units per page, not two per run.
 */
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DispatchIntent, DispatchIntents } from '#core/runs/dispatch-intent';
import { dispatchIntentKey } from './metrics-keys.ts';
import { METRICS_TABLE } from './table-definitions.ts';

export class DynamoDispatchIntents implements DispatchIntents {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async record(intent: DispatchIntent): Promise<void> {
    const { shard, id, sweepAt, jobs, from, until } = intent;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...dispatchIntentKey(intent), shard, id, sweepAt, jobs, from, until },
      }),
    );
  }

  async clear(intent: Pick<DispatchIntent, 'shard' | 'id' | 'sweepAt'>): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: dispatchIntentKey(intent) }));
  }

  async findDue(shard: string, until: number, limit: number): Promise<DispatchIntent[]> {
    const { pk, sk } = dispatchIntentKey({ shard, sweepAt: until, id: '' });
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        // Every id sorts after `#` and before `#\uffff`: every intent due at or before `until`.
        KeyConditionExpression: '#pk = :pk AND #sk <= :last',
        ExpressionAttributeNames: { '#pk': METRICS_TABLE.partitionKey, '#sk': METRICS_TABLE.sortKey },
        ExpressionAttributeValues: { ':pk': pk, ':last': `${sk}\uffff` },
        Limit: limit,
      }),
    );
    return Items.map((item) => ({
      shard: item.shard as string,
      id: item.id as string,
      sweepAt: item.sweepAt as number,
      jobs: item.jobs as string[],
      from: item.from as number,
      until: item.until as number,
    }));
  }
}
