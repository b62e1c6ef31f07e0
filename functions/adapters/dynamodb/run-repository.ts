/**
 * Runs in DynamoDB: one item per attempt, a job's history under one partition key. Every state
 * change is a conditional write, which is what makes duplicate messages and racing executors safe.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Run, RunKey } from '#core/model';
import type { Page, RunOutcome, RunRepository } from '#core/ports';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { fromRunItem, runTableKey, toRunItem } from './run-item.ts';
import { RUNS_TABLE } from './table-definitions.ts';

type Claim = { claimed: true; run: Run } | { claimed: false; run?: Run };

export class DynamoRunRepository implements RunRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createIfAbsent(
    run: Run & { expiresAt?: number },
  ): Promise<{ created: true } | { created: false; existing: Run }> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toRunItem(run),
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': RUNS_TABLE.partitionKey },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { created: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const existing = itemOfConditionFailure<Record<string, unknown>>(error);
      if (!existing) throw error;
      return { created: false, existing: fromRunItem(existing) };
    }
  }

  async claim(key: RunKey, lease: { owner: string; expiresAt: number; now: number }): Promise<Claim> {
    const fresh = await this.update(key, {
      UpdateExpression: 'SET #status = :running, #owner = :owner, #lease = :lease, #claimedAt = :now',
      ConditionExpression: '#status = :queued',
      ExpressionAttributeNames: {
        '#status': 'status',
        '#owner': 'leaseOwner',
        '#lease': 'leaseExpiresAt',
        '#claimedAt': 'claimedAt',
      },
      ExpressionAttributeValues: {
        ':running': 'RUNNING',
        ':queued': 'QUEUED',
        ':owner': lease.owner,
        ':lease': lease.expiresAt,
        ':now': lease.now,
      },
    });
    if (fresh.ok) return { claimed: true, run: fresh.run };
    const current = fresh.current;
    if (!current || current.status !== 'RUNNING' || (current.leaseExpiresAt ?? 0) >= lease.now) {
      return current ? { claimed: false, run: current } : { claimed: false };
    }
    // The holder's lease ran out: it crashed or hung. Take over, counting the recovery.
    const takeover = await this.update(key, {
      UpdateExpression: 'SET #owner = :owner, #lease = :lease, #claimedAt = :now ADD #recoveries :one',
      ConditionExpression: '#status = :running AND #lease = :expired',
      ExpressionAttributeNames: {
        '#status': 'status',
        '#owner': 'leaseOwner',
        '#lease': 'leaseExpiresAt',
        '#claimedAt': 'claimedAt',
        '#recoveries': 'recoveries',
      },
      ExpressionAttributeValues: {
        ':running': 'RUNNING',
        ':expired': current.leaseExpiresAt,
        ':owner': lease.owner,
        ':lease': lease.expiresAt,
        ':now': lease.now,
        ':one': 1,
      },
    });
    if (takeover.ok) return { claimed: true, run: takeover.run };
    return takeover.current ? { claimed: false, run: takeover.current } : { claimed: false };
  }

  async complete(key: RunKey, owner: string, outcome: RunOutcome): Promise<boolean> {
    const names: Record<string, string> = { '#status': 'status', '#owner': 'leaseOwner' };
    const values: Record<string, unknown> = { ':running': 'RUNNING', ':owner': owner };
    const sets: string[] = [];
    for (const [field, value] of Object.entries(outcome)) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    const result = await this.update(key, {
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: '#status = :running AND #owner = :owner',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
    return result.ok;
  }

  async get(key: RunKey): Promise<Run | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: runTableKey(key), ConsistentRead: true }),
    );
    return Item ? fromRunItem(Item) : undefined;
  }

  async previous(key: RunKey): Promise<Run | undefined> {
    const { pk, sk } = runTableKey({ ...key, attempt: 0 });
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk AND #sk < :sk',
        ExpressionAttributeNames: { '#pk': RUNS_TABLE.partitionKey, '#sk': RUNS_TABLE.sortKey },
        ExpressionAttributeValues: { ':pk': pk, ':sk': sk },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    return Items[0] ? fromRunItem(Items[0]) : undefined;
  }

  async listByJob(tenantId: string, jobId: string, options: { limit: number; cursor?: string }): Promise<Page<Run>> {
    const start = decodeCursor(options.cursor, [RUNS_TABLE.partitionKey, RUNS_TABLE.sortKey]);
    const { pk } = runTableKey({ tenantId, jobId, scheduledFor: 0, attempt: 0 });
    if (start && start[RUNS_TABLE.partitionKey] !== pk) {
      return { items: [] };
    }
    const { Items = [], LastEvaluatedKey } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': RUNS_TABLE.partitionKey },
        ExpressionAttributeValues: { ':pk': pk },
        ScanIndexForward: false,
        Limit: options.limit,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const cursor = encodeCursor(LastEvaluatedKey);
    return { items: Items.map(fromRunItem), ...(cursor ? { cursor } : {}) };
  }

  private async update(
    key: RunKey,
    input: Pick<
      ConstructorParameters<typeof UpdateCommand>[0],
      'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    >,
  ): Promise<{ ok: true; run: Run } | { ok: false; current?: Run }> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: runTableKey(key),
          ...input,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { ok: true, run: fromRunItem(Attributes ?? {}) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const current = itemOfConditionFailure<Record<string, unknown>>(error);
      return current ? { ok: false, current: fromRunItem(current) } : { ok: false };
    }
  }
}
