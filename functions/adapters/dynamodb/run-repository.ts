/**
 * Runs in DynamoDB: one item per attempt, a job's history under one partition key. Every state
 * change is a conditional write, which is what makes duplicate messages and racing executors safe.
 *
 * The sparse sweep-index (`sweepShard`, `sweepAt`) holds the runs no executor has claimed yet:
 * every run enters it with its creating put (but a scanner's, covered by its page's dispatch
 * intent: core/runs/dispatch-intent.ts), at its release plus a grace (or, for a retry parked
 * beyond the SQS delay limit, when it comes within reach of a delay), and the claim takes it out.
 * A run whose message never came (its writer died before sending, SQS refused the send) is still
 * there after the grace, and the scanner's sweep sends it. A run under a lease is not in it: the
 * executor hides the run's message until the lease ends, so a dead executor's message comes back by
 * itself (handlers/executor.ts). Terminal writes remove the attributes too, so nothing finished
 * stays behind; removing attributes an item does not have writes no index entry.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { dueShardOf } from '#core/due-shard';
import { OutcomeRejectedError } from '#core/errors';
import type { Run, RunKey } from '#core/model';
import type { ClaimResult, Lease, Page, RunListQuery, RunOutcome, RunRepository } from '#core/ports';
import { DEFAULT_SWEEP_GRACE_MS, sweepAtOf } from '#core/runs/send-runs';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { deadLettersCursor } from './listing-cursors.ts';
import { fromRunItem, runTableKey, toRunItem } from './run-item.ts';
import { bindTriggerKey, discardQueuedRun, latestRunsOfJob, listRunsOfJob } from './run-management.ts';
import { RUNS_TABLE } from './table-definitions.ts';

/**
 * An outcome DynamoDB refuses as such: a ValidationException (an item over 400 KB, an attribute it
 * cannot hold), or an error the client raised before sending anything (the marshaller refusing a
 * value, e.g. a number beyond MAX_SAFE_INTEGER). Those never have the service's `$metadata`.
 * Throttling, timeouts and the network are transient.
 */
function refusesOutcome(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  return error.name === 'ValidationException' || !('$metadata' in error);
}

type UpdateInput = Pick<
  ConstructorParameters<typeof UpdateCommand>[0],
  'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
>;

const { sweepIndex, deadLetterIndex } = RUNS_TABLE;
const SWEEP_NAMES = { '#sweepShard': sweepIndex.partitionKey, '#sweepAt': sweepIndex.sortKey };

export class DynamoRunRepository implements RunRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Partitions of the sweep index (the due-index shard count). */
    private readonly shardCount: number,
    /** How long past its release a new run may stay unclaimed before the sweep sends it (SWEEP_GRACE_SECONDS). */
    private readonly sweepGraceMs: number = DEFAULT_SWEEP_GRACE_MS,
  ) {}

  async createIfAbsent(
    run: Run & { expiresAt?: number },
    options: { sweepAt?: number; inSweepIndex?: boolean } = {},
  ): Promise<{ created: true } | { created: false; existing: Run }> {
    // In the same put: a writer that dies right after it still leaves the run where the sweep looks.
    const sweep =
      run.status === 'QUEUED' && options.inSweepIndex !== false
        ? {
            [sweepIndex.partitionKey]: dueShardOf(run.jobId, this.shardCount),
            [sweepIndex.sortKey]: options.sweepAt ?? sweepAtOf(run, this.sweepGraceMs),
          }
        : {};
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...toRunItem(run), ...sweep },
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

  async claim(key: RunKey, lease: Lease): Promise<ClaimResult> {
    const names: Record<string, string> = {
      '#status': 'status',
      '#owner': 'leaseOwner',
      '#lease': 'leaseExpiresAt',
      '#claimedAt': 'claimedAt',
      ...SWEEP_NAMES,
    };
    const values: Record<string, unknown> = {
      ':running': 'RUNNING',
      ':owner': lease.owner,
      ':lease': lease.expiresAt,
      ':now': lease.now,
    };
    // An async job's settings ride on the claim: the run's callbacks are decided on them (core/async/).
    const setAsync = lease.async ? ', #async = :async' : '';
    if (lease.async) {
      names['#async'] = 'async';
      values[':async'] = lease.async;
    }
    // The time spent waiting for a flow-control key (core/flow-control/) too.
    const setWaited = lease.waitedMs === undefined ? '' : ', #waitedMs = :waitedMs';
    if (lease.waitedMs !== undefined) {
      names['#waitedMs'] = 'waitedMs';
      values[':waitedMs'] = lease.waitedMs;
    }
    const setLease = `SET #status = :running, #owner = :owner, #lease = :lease, #claimedAt = :now${setAsync}${setWaited} REMOVE #sweepShard, #sweepAt`;
    const fresh = await this.update(key, {
      UpdateExpression: setLease,
      ConditionExpression: '#status = :queued',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':queued': 'QUEUED' },
    });
    if (fresh.ok) return { claimed: true, run: fresh.run };
    const current = fresh.current;
    if (!current) return { claimed: false };
    const expired = current.status === 'RUNNING' && (current.leaseExpiresAt ?? 0) < lease.now;
    if (!expired) return { claimed: false, run: current };
    if (!lease.takeOverExpired) return { claimed: false, run: current, expired: true };
    // The holder's lease ran out: it crashed or hung. Take over, counting the recovery.
    const takeover = await this.update(key, {
      UpdateExpression: `${setLease} ADD #recoveries :one`,
      ConditionExpression: '#status = :running AND #lease = :expired',
      ExpressionAttributeNames: { ...names, '#recoveries': 'recoveries' },
      ExpressionAttributeValues: { ...values, ':expired': current.leaseExpiresAt, ':one': 1 },
    });
    if (takeover.ok) return { claimed: true, run: takeover.run };
    return takeover.current ? { claimed: false, run: takeover.current } : { claimed: false };
  }

  async complete(key: RunKey, owner: string, outcome: RunOutcome): Promise<boolean> {
    const names: Record<string, string> = { '#status': 'status', '#owner': 'leaseOwner', ...SWEEP_NAMES };
    const values: Record<string, unknown> = { ':running': 'RUNNING', ':owner': owner };
    const sets: string[] = [];
    for (const [field, value] of Object.entries(outcome)) {
      if (value === undefined) continue;
      names[`#${field}`] = field;
      values[`:${field}`] = value;
      sets.push(`#${field} = :${field}`);
    }
    try {
      const result = await this.update(key, {
        UpdateExpression: `SET ${sets.join(', ')} REMOVE #sweepShard, #sweepAt`,
        ConditionExpression: '#status = :running AND #owner = :owner',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      });
      return result.ok;
    } catch (error) {
      throw refusesOutcome(error) ? new OutcomeRejectedError((error as Error).message, { cause: error }) : error;
    }
  }

  async release(key: RunKey, owner: string, leaseExpiresAt: number): Promise<boolean> {
    const result = await this.update(key, {
      // Back in the sweep index too: QUEUED again, it must never depend on its message alone.
      UpdateExpression:
        'SET #status = :queued, #sweepShard = :shard, #sweepAt = :sweepAt REMOVE #owner, #lease, #claimedAt',
      ConditionExpression: '#status = :running AND #owner = :owner AND #lease = :lease',
      ExpressionAttributeNames: {
        '#status': 'status',
        '#owner': 'leaseOwner',
        '#lease': 'leaseExpiresAt',
        '#claimedAt': 'claimedAt',
        ...SWEEP_NAMES,
      },
      ExpressionAttributeValues: {
        ':queued': 'QUEUED',
        ':running': 'RUNNING',
        ':owner': owner,
        ':lease': leaseExpiresAt,
        ':shard': dueShardOf(key.jobId, this.shardCount),
        ':sweepAt': Date.now() + this.sweepGraceMs,
      },
    });
    return result.ok;
  }

  async markLost(key: RunKey, expiredLeaseAt: number, now: number): Promise<boolean> {
    const result = await this.update(key, {
      UpdateExpression:
        'SET #status = :failed, #errorType = :lost, #error = :why, #completedAt = :now REMOVE #sweepShard, #sweepAt',
      ConditionExpression: '#status = :running AND #lease = :expired',
      ExpressionAttributeNames: {
        '#status': 'status',
        '#errorType': 'errorType',
        '#error': 'error',
        '#completedAt': 'completedAt',
        '#lease': 'leaseExpiresAt',
        ...SWEEP_NAMES,
      },
      ExpressionAttributeValues: {
        ':failed': 'FAILED',
        ':lost': 'lost',
        ':why': 'executor lease expired mid-call; at-most-once delivery forbids calling again',
        ':now': now,
        ':running': 'RUNNING',
        ':expired': expiredLeaseAt,
      },
    });
    return result.ok;
  }

  async deadLetter(key: RunKey, reason: string, now: number): Promise<boolean> {
    const result = await this.update(key, {
      UpdateExpression:
        'SET #status = :dead, #errorType = :dl, #error = :why, #completedAt = :now, #dlTenant = :tenant, #dlAt = :now REMOVE #sweepShard, #sweepAt',
      ConditionExpression: '#status IN (:queued, :running)',
      ExpressionAttributeNames: {
        '#status': 'status',
        '#errorType': 'errorType',
        '#error': 'error',
        '#completedAt': 'completedAt',
        '#dlTenant': deadLetterIndex.partitionKey,
        '#dlAt': deadLetterIndex.sortKey,
        ...SWEEP_NAMES,
      },
      ExpressionAttributeValues: {
        ':dead': 'DEAD_LETTERED',
        ':dl': 'dead_letter',
        ':why': reason,
        ':now': now,
        ':tenant': key.tenantId,
        ':queued': 'QUEUED',
        ':running': 'RUNNING',
      },
    });
    return result.ok;
  }

  async findSweepable(shard: string, until: number, limit: number): Promise<Array<Run & { sweepAt: number }>> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: sweepIndex.name,
        KeyConditionExpression: '#sweepShard = :shard AND #sweepAt <= :until',
        ExpressionAttributeNames: SWEEP_NAMES,
        ExpressionAttributeValues: { ':shard': shard, ':until': until },
        Limit: limit,
      }),
    );
    return Items.map((item) => ({ ...fromRunItem(item), sweepAt: item[sweepIndex.sortKey] as number }));
  }

  async rescheduleSweep(key: RunKey, from: number, to: number): Promise<boolean> {
    const result = await this.update(key, {
      UpdateExpression: 'SET #sweepAt = :to ADD #sweeps :one',
      ConditionExpression: '#sweepAt = :from',
      ExpressionAttributeNames: { '#sweepAt': sweepIndex.sortKey, '#sweeps': 'sweeps' },
      ExpressionAttributeValues: { ':from': from, ':to': to, ':one': 1 },
    });
    return result.ok;
  }

  async countSweep(key: RunKey): Promise<boolean> {
    const result = await this.update(key, {
      UpdateExpression: 'ADD #sweeps :one',
      ConditionExpression: '#status = :queued',
      ExpressionAttributeNames: { '#sweeps': 'sweeps', '#status': 'status' },
      ExpressionAttributeValues: { ':one': 1, ':queued': 'QUEUED' },
    });
    return result.ok;
  }

  async listDeadLetters(tenantId: string, options: { limit: number; cursor?: string }): Promise<Page<Run>> {
    const start = decodeCursor(options.cursor, deadLettersCursor(tenantId));
    const { Items = [], LastEvaluatedKey } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: deadLetterIndex.name,
        KeyConditionExpression: '#tenant = :tenant',
        ExpressionAttributeNames: { '#tenant': deadLetterIndex.partitionKey },
        ExpressionAttributeValues: { ':tenant': tenantId },
        ScanIndexForward: false,
        Limit: options.limit,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    const cursor = encodeCursor(LastEvaluatedKey);
    return { items: Items.map(fromRunItem), ...(cursor ? { cursor } : {}) };
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

  async listByJob(tenantId: string, jobId: string, options: RunListQuery): Promise<Page<Run>> {
    return listRunsOfJob(this.client, this.tableName, tenantId, jobId, options);
  }

  async discardQueued(key: RunKey): Promise<boolean> {
    return discardQueuedRun(this.client, this.tableName, key);
  }

  async bindTriggerKey(
    job: Pick<RunKey, 'tenantId' | 'jobId'>,
    idempotencyKey: string,
    scheduledFor: number,
    now: number,
    expiresAt: number,
    replacing?: number,
  ): Promise<number> {
    return bindTriggerKey(this.client, this.tableName, job, idempotencyKey, scheduledFor, now, expiresAt, replacing);
  }

  async latestRuns(job: Pick<RunKey, 'tenantId' | 'jobId'>, until: number, limit: number): Promise<Run[]> {
    return latestRunsOfJob(this.client, this.tableName, job, until, limit);
  }

  private async update(
    key: RunKey,
    input: UpdateInput,
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
