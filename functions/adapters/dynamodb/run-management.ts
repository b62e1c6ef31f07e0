/**
 * The runs-table operations behind job management: the filtered run history, discarding a run
 * nobody has claimed yet, and the Idempotency-Key markers of manual triggers.
 *
 * Trigger markers live in the job's own runs partition under sort keys `trigger#<key>`, so they
 * are scoped to the tenant and job structurally and expire with TTL. Run sort keys start with 13
 * digits, so every run query bounds its key range to digits and never sees a marker.
 */
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Run, RunKey } from '#core/model';
import type { Page, RunListQuery } from '#core/ports';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { decodeCursor } from './cursor.ts';
import { queryFilteredPage } from './filtered-query.ts';
import { runsOfJobCursor } from './listing-cursors.ts';
import { fromRunItem, runTableKey } from './run-item.ts';
import { RUNS_TABLE } from './table-definitions.ts';

const { partitionKey: PK, sortKey: SK, ttlAttribute: TTL } = RUNS_TABLE;
const LAST_INSTANT = 9_999_999_999_999;

/** A job's runs, newest first, within [from, to] (scheduled time) and of one status when given. */
export async function listRunsOfJob(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  jobId: string,
  query: RunListQuery,
): Promise<Page<Run>> {
  const low = runTableKey({ tenantId, jobId, scheduledFor: query.from ?? 0, attempt: 0 });
  const high = runTableKey({ tenantId, jobId, scheduledFor: query.to ?? LAST_INSTANT, attempt: 999 });
  const start = decodeCursor(query.cursor, runsOfJobCursor(low.pk, low.sk, high.sk));
  // An empty window (`from` after `to`) holds no run; DynamoDB would refuse its BETWEEN outright.
  if (low.sk > high.sk) return { items: [] };
  const names: Record<string, string> = { '#pk': PK, '#sk': SK };
  const values: Record<string, unknown> = { ':pk': low.pk, ':low': low.sk, ':high': high.sk };
  if (query.status !== undefined) {
    names['#status'] = 'status';
    values[':status'] = query.status;
  }
  const page = await queryFilteredPage(
    client,
    {
      TableName: tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
      ...(query.status === undefined ? {} : { FilterExpression: '#status = :status' }),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
    },
    query.limit,
    start,
  );
  return { ...page, items: page.items.map(fromRunItem) };
}

/** Deletes the run if it is still QUEUED; false when it was claimed, finished or missing. */
export async function discardQueuedRun(
  client: DynamoDBDocumentClient,
  tableName: string,
  key: RunKey,
): Promise<boolean> {
  try {
    await client.send(
      new DeleteCommand({
        TableName: tableName,
        Key: runTableKey(key),
        ConditionExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':queued': 'QUEUED' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Binds `idempotencyKey` to `scheduledFor` unless a live binding exists; returns the bound time.
 * With `replacing`, a live binding still at `replacing` is moved to `scheduledFor` (conditionally,
 * so that of two requests with the same key moving it, both end up at the same time).
 */
export async function bindTriggerKey(
  client: DynamoDBDocumentClient,
  tableName: string,
  job: Pick<RunKey, 'tenantId' | 'jobId'>,
  idempotencyKey: string,
  scheduledFor: number,
  now: number,
  expiresAt: number,
  replacing?: number,
): Promise<number> {
  const { pk } = runTableKey({ ...job, scheduledFor: 0, attempt: 0 });
  // TTL deletes lazily (up to days late): an expired marker counts as absent.
  const free = 'attribute_not_exists(#pk) OR #ttl < :nowSeconds';
  try {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { [PK]: pk, [SK]: `trigger#${idempotencyKey}`, scheduledFor, [TTL]: expiresAt },
        ConditionExpression: replacing === undefined ? free : `${free} OR #at = :replacing`,
        ExpressionAttributeNames: {
          '#pk': PK,
          '#ttl': TTL,
          ...(replacing === undefined ? {} : { '#at': 'scheduledFor' }),
        },
        ExpressionAttributeValues: {
          ':nowSeconds': Math.floor(now / 1000),
          ...(replacing === undefined ? {} : { ':replacing': replacing }),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return scheduledFor;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = itemOfConditionFailure<{ scheduledFor: number }>(error);
    if (!existing) throw error;
    return existing.scheduledFor;
  }
}

/**
 * The job's newest runs scheduled at or before `until`, newest first: one strongly consistent
 * Query on the job's partition, its key range bounded to run sort keys (never a trigger marker).
 */
export async function latestRunsOfJob(
  client: DynamoDBDocumentClient,
  tableName: string,
  job: Pick<RunKey, 'tenantId' | 'jobId'>,
  until: number,
  limit: number,
): Promise<Run[]> {
  const low = runTableKey({ ...job, scheduledFor: 0, attempt: 0 });
  const high = runTableKey({ ...job, scheduledFor: Math.min(until, LAST_INSTANT), attempt: 999 });
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
      ExpressionAttributeNames: { '#pk': PK, '#sk': SK },
      ExpressionAttributeValues: { ':pk': low.pk, ':low': low.sk, ':high': high.sk },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return Items.map(fromRunItem);
}
