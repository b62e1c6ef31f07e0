/**
 * The scanner's heartbeat: one item per due-index shard, overwritten by every pass (a failed
 * shard's item carries its error, and the next good pass overwrites it without one).
 */
import { BatchWriteCommand, type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ScannerHeartbeats, ShardHeartbeat } from '#core/metrics/ports';
import { HEARTBEAT_PK } from './metrics-keys.ts';
import { METRICS_TABLE } from './table-definitions.ts';

const BATCH = 25;

export class DynamoScannerHeartbeats implements ScannerHeartbeats {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async beat(shards: ShardHeartbeat[]): Promise<void> {
    for (let i = 0; i < shards.length; i += BATCH) {
      let requests: unknown[] = shards.slice(i, i + BATCH).map((beat) => ({
        PutRequest: {
          Item: { [METRICS_TABLE.partitionKey]: HEARTBEAT_PK, [METRICS_TABLE.sortKey]: beat.shard, ...beat },
        },
      }));
      // Unprocessed items (throttling) are sent again a few times; a heartbeat is overwritten every minute anyway.
      for (let attempt = 0; attempt < 3 && requests.length > 0; attempt++) {
        const { UnprocessedItems } = await this.client.send(
          new BatchWriteCommand({ RequestItems: { [this.tableName]: requests as never } }),
        );
        requests = UnprocessedItems?.[this.tableName] ?? [];
      }
    }
  }

  async read(): Promise<ShardHeartbeat[]> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': METRICS_TABLE.partitionKey },
        ExpressionAttributeValues: { ':pk': HEARTBEAT_PK },
      }),
    );
    return Items.map((item) => ({
      shard: item.shard as string,
      at: item.at as number,
      durationMs: item.durationMs as number,
      jobsFound: item.jobsFound as number,
      runsCreated: item.runsCreated as number,
      lagMs: item.lagMs as number,
      ...(typeof item.error === 'string' ? { error: item.error } : {}),
    }));
  }
}
