/**
 * Async runs in the runs table (core/async/ports.ts): the run items themselves, read strongly
 * consistent, and the decisions' conditional writes as UpdateItem (core/async/apply-write.ts is
 * the reference: the condition is the status, the `asyncRevision` and, for the executor's 202,
 * the lease owner). A write that ends the run also leaves the sweep index, as every terminal
 * write does (run-repository.ts). The deadline index is queried for the scanner's pass.
 */
import { type DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AsyncRunWrite } from '#core/async/async-run';
import { DEFAULT_ASYNC_SETTINGS } from '#core/async/async-settings';
import type { AsyncRunStore, StoredAsyncRun } from '#core/async/ports';
import type { Run, RunKey } from '#core/model';
import { isTerminal } from '#core/run-state';
import { isConditionFailure } from './conditional.ts';
import { fromRunItem, runTableKey } from './run-item.ts';
import { RUNS_TABLE } from './table-definitions.ts';

const { sweepIndex, deadlineIndex } = RUNS_TABLE;
/** Pages of a job's history read for its async runs in flight (newest first). */
const IN_FLIGHT_PAGES = 5;

/** A run as the async decisions read it: its settings (the defaults for a run that is not async). */
export function asyncStateOf(run: Run): StoredAsyncRun {
  return {
    ...run,
    revision: run.asyncRevision ?? 0,
    settings: run.async ?? { ...DEFAULT_ASYNC_SETTINGS },
    isAsync: run.async !== undefined,
  };
}

export class DynamoAsyncRunStore implements AsyncRunStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async read(key: RunKey): Promise<StoredAsyncRun | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: runTableKey(key), ConsistentRead: true }),
    );
    return Item ? asyncStateOf(fromRunItem(Item)) : undefined;
  }

  async occurrence(key: Omit<RunKey, 'attempt'>): Promise<StoredAsyncRun[]> {
    const { pk, sk } = runTableKey({ ...key, attempt: 0 });
    const prefix = sk.slice(0, sk.indexOf('#') + 1);
    const runs: StoredAsyncRun[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: { '#pk': RUNS_TABLE.partitionKey, '#sk': RUNS_TABLE.sortKey },
          ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) runs.push(asyncStateOf(fromRunItem(item)));
      start = page.LastEvaluatedKey;
    } while (start);
    return runs;
  }

  async apply(key: RunKey, write: AsyncRunWrite): Promise<boolean> {
    const names: Record<string, string> = { '#status': 'status', '#revision': 'asyncRevision' };
    const values: Record<string, unknown> = { ':expectedStatus': write.condition.status };
    const sets: string[] = [];
    for (const [field, value] of Object.entries(write.set)) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    const removed: string[] = [...write.remove];
    if (write.set.status !== undefined && isTerminal(write.set.status))
      removed.push(sweepIndex.partitionKey, sweepIndex.sortKey);
    for (const field of removed) names[`#${field}`] = field;
    const conditions = ['#status = :expectedStatus'];
    if (write.condition.revision === 0) conditions.push('attribute_not_exists(#revision)');
    else {
      conditions.push('#revision = :expectedRevision');
      values[':expectedRevision'] = write.condition.revision;
    }
    if (write.condition.leaseOwner !== undefined) {
      names['#leaseOwner'] = 'leaseOwner';
      values[':expectedOwner'] = write.condition.leaseOwner;
      conditions.push('#leaseOwner = :expectedOwner');
    }
    const remove = [...new Set(removed)].map((field) => `#${field}`);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: runTableKey(key),
          UpdateExpression: `SET ${sets.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async pastDeadline(shard: string, until: number, limit: number): Promise<RunKey[]> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: deadlineIndex.name,
        KeyConditionExpression: '#shard = :shard AND #at < :until',
        ExpressionAttributeNames: { '#shard': deadlineIndex.partitionKey, '#at': deadlineIndex.sortKey },
        ExpressionAttributeValues: { ':shard': shard, ':until': until },
        Limit: limit,
      }),
    );
    return (Items ?? []).map((item) => ({
      tenantId: item.tenantId as string,
      jobId: item.jobId as string,
      scheduledFor: item.scheduledFor as number,
      attempt: item.attempt as number,
    }));
  }

  /** A job's async runs RUNNING now (a job's cancel asks each to stop), newest first. */
  async inFlight(tenantId: string, jobId: string): Promise<RunKey[]> {
    const keys: RunKey[] = [];
    let start: Record<string, unknown> | undefined;
    for (let page = 0; page < IN_FLIGHT_PAGES; page++) {
      const result = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk',
          FilterExpression: '#status = :running AND attribute_exists(#async)',
          ExpressionAttributeNames: { '#pk': RUNS_TABLE.partitionKey, '#status': 'status', '#async': 'async' },
          ExpressionAttributeValues: { ':pk': `${tenantId}#${jobId}`, ':running': 'RUNNING' },
          ScanIndexForward: false,
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of result.Items ?? []) {
        const run = fromRunItem(item);
        keys.push({ tenantId: run.tenantId, jobId: run.jobId, scheduledFor: run.scheduledFor, attempt: run.attempt });
      }
      start = result.LastEvaluatedKey;
      if (!start) break;
    }
    return keys;
  }
}
