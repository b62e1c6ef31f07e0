/**
 * The system view's count of async runs in flight (core/metrics/ports.ts AsyncRunsInFlight): a
 * `Select: COUNT` Query per shard of the runs table's sparse deadline index, which holds exactly the
 * accepted async runs that are RUNNING (every end removes a run from it). No table scan: each
 * shard's count reads only its index entries (keys and a few attributes, about 100 bytes each: a
 * read unit counts some 40 runs), and `overdue` reads only the entries past their deadline. The
 * index is eventually consistent, like every GSI: a run accepted or ended a moment ago may not
 * show yet.
 */
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { allShards } from '#core/due-shard';
import type { AsyncRunsInFlight } from '#core/metrics/ports';
import { RUNS_TABLE } from './table-definitions.ts';

const { deadlineIndex } = RUNS_TABLE;

export class DynamoAsyncRunsInFlight implements AsyncRunsInFlight {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly shardCount: number,
  ) {}

  async count(now: number): Promise<{ inFlight: number; overdue: number }> {
    const shards = allShards(this.shardCount);
    const [inFlight, overdue] = await Promise.all([
      Promise.all(shards.map((shard) => this.countShard(shard))),
      Promise.all(shards.map((shard) => this.countShard(shard, now))),
    ]);
    const sum = (counts: number[]) => counts.reduce((total, n) => total + n, 0);
    return { inFlight: sum(inFlight), overdue: sum(overdue) };
  }

  /** The entries of one shard, or only those whose deadline is before `before`; every page of the count. */
  private async countShard(shard: string, before?: number): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: deadlineIndex.name,
          Select: 'COUNT',
          KeyConditionExpression:
            before === undefined ? '#shard = :shard' : '#shard = :shard AND #deadlineAt < :before',
          ExpressionAttributeNames: {
            '#shard': deadlineIndex.partitionKey,
            ...(before === undefined ? {} : { '#deadlineAt': deadlineIndex.sortKey }),
          },
          ExpressionAttributeValues: { ':shard': shard, ...(before === undefined ? {} : { ':before': before }) },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return count;
  }
}
