/**
 * Run aggregates in the metrics table: every finished run adds one to its status count and one to
 * a start-lag and a duration histogram cell of its completion minute's bucket, and every run
 * entering or leaving QUEUED one to `queuedIn` or `queuedOut` of its due minute's bucket; each in
 * its tenant's bucket and in the all-tenants bucket (atomic ADDs).
 *
 * Exactly once, per stream delivery rather than per run: a batch's ADDs (each bucket updated once
 * with the batch's summed deltas) go in one TransactWriteItems with a conditional write of one
 * marker per batch, keyed by the batch's first record and holding the stream position of the last
 * record counted. A redelivered batch starts at the same first record (the completion handler
 * relies on Lambda's stream checkpointing for that) and finds the marker: only the records after
 * the position it holds are counted, and the marker moves on in the same transaction. A crash never
 * leaves counts without their marker, or the reverse. Cost: the transaction's doubled write units
 * on the buckets a batch touches plus one marker of under 100 bytes, whatever the number of runs.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { emptyHistogram } from '#core/metrics/lag-histogram';
import type { MinuteBucket } from '#core/metrics/minute-bucket';
import { type AggregateBatch, type AggregateEntry, ALL_TENANTS, type RunAggregates } from '#core/metrics/ports';
import { TERMINAL_RUN_STATUSES } from '#core/run-state';
import {
  BUCKET_ATTRIBUTES,
  BUCKET_TTL_SECONDS,
  batchMarkerKey,
  bucketKey,
  HISTOGRAM_CELLS,
  MARKER_LAST_COUNTED,
  MARKER_TTL_SECONDS,
} from './metrics-keys.ts';
import { METRICS_TABLE } from './table-definitions.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type BucketDeltas = Map<string, { scope: string; minute: number; adds: Map<string, number> }>;

/** TransactWriteItems' limit: the marker plus at most this minus one buckets per transaction. */
const MAX_TRANSACTION_ITEMS = 100;
const CONFLICT_RETRIES = 6;
/** The marker's condition failing this often in a row is not a replay but a bug: stop. */
const MARKER_MISMATCHES = 3;

export class DynamoRunAggregates implements RunAggregates {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async add(batch: AggregateBatch): Promise<number> {
    const entries = batch.entries.filter((entry) => entry.finished !== undefined || entry.queue.length > 0);
    const marker = batchMarkerKey(batch.id);
    /** The marker's last counted position, as far as we know; undefined: no marker yet. */
    let counted: string | undefined;
    let added = 0;
    let conflicts = 0;
    let mismatches = 0;
    for (;;) {
      const pending = counted === undefined ? entries : entries.filter((e) => isAfter(e.position, counted as string));
      if (pending.length === 0) return added;
      // Usually the whole batch; more transactions only when its buckets exceed one transaction.
      const { group, deltas } = firstGroupThatFits(pending);
      const last = (group[group.length - 1] as AggregateEntry).position;
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [this.markerWrite(marker, counted, last), ...this.bucketUpdates(deltas)],
          }),
        );
        added += group.length;
        counted = last;
        conflicts = 0;
        mismatches = 0;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons === undefined) throw error;
        if (reasons[0]?.Code === 'ConditionalCheckFailed' && ++mismatches <= MARKER_MISMATCHES) {
          // Counted before (a redelivery) or meanwhile: go on after what the marker says.
          counted = await this.lastCounted(marker);
        } else if (reasons.some((r) => r.Code === 'TransactionConflict') && ++conflicts <= CONFLICT_RETRIES) {
          // Another batch was updating the same bucket: back off with jitter before trying again.
          await sleep(Math.random() * 25 * 2 ** conflicts);
        } else {
          throw error;
        }
      }
    }
  }

  async read(scope: string, fromMinute: number, toMinute: number): Promise<MinuteBucket[]> {
    const from = bucketKey(scope, fromMinute);
    const to = bucketKey(scope, toMinute);
    const buckets: MinuteBucket[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#pk': METRICS_TABLE.partitionKey, '#sk': METRICS_TABLE.sortKey },
          ExpressionAttributeValues: { ':pk': from.pk, ':from': from.sk, ':to': to.sk },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      buckets.push(...(page.Items ?? []).map(bucketOfItem));
      start = page.LastEvaluatedKey;
    } while (start);
    return buckets;
  }

  /** Creates the marker (none expected) or moves it on from `counted` (its value expected). */
  private markerWrite(key: { pk: string; sk: string }, counted: string | undefined, last: string): TransactItem {
    const expiresAt = Math.floor(this.now() / 1000) + MARKER_TTL_SECONDS;
    if (counted === undefined) {
      return {
        Put: {
          TableName: this.tableName,
          Item: { ...key, [MARKER_LAST_COUNTED]: last, [METRICS_TABLE.ttlAttribute]: expiresAt },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': METRICS_TABLE.partitionKey },
        },
      };
    }
    return {
      Update: {
        TableName: this.tableName,
        Key: key,
        UpdateExpression: 'SET #last = :last, #expiresAt = :expiresAt',
        ConditionExpression: '#last = :counted',
        ExpressionAttributeNames: { '#last': MARKER_LAST_COUNTED, '#expiresAt': METRICS_TABLE.ttlAttribute },
        ExpressionAttributeValues: { ':last': last, ':counted': counted, ':expiresAt': expiresAt },
      },
    };
  }

  private async lastCounted(key: { pk: string; sk: string }): Promise<string | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    const last = Item?.[MARKER_LAST_COUNTED];
    return typeof last === 'string' ? last : undefined;
  }

  /** One update per bucket item: a transaction may touch an item only once. */
  private bucketUpdates(deltas: BucketDeltas): TransactItem[] {
    return [...deltas.values()].map(({ scope, minute, adds }) => {
      const names: Record<string, string> = { '#expiresAt': METRICS_TABLE.ttlAttribute, '#minute': 'minute' };
      const values: Record<string, number> = {
        ':expiresAt': Math.floor(minute / 1000) + BUCKET_TTL_SECONDS,
        ':minute': minute,
      };
      const clauses = [...adds.entries()].map(([name, count], i) => {
        names[`#a${i}`] = name;
        values[`:a${i}`] = count;
        return `#a${i} :a${i}`;
      });
      return {
        Update: {
          TableName: this.tableName,
          Key: bucketKey(scope, minute),
          UpdateExpression: `SET #expiresAt = :expiresAt, #minute = :minute ADD ${clauses.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      };
    });
  }
}

/** Stream sequence numbers are decimal strings of varying length: compared as numbers, not as text. */
function isAfter(position: string, last: string): boolean {
  return BigInt(position) > BigInt(last);
}

/** The longest run of entries from the first whose buckets fit in one transaction next to the marker. */
function firstGroupThatFits(entries: AggregateEntry[]): { group: AggregateEntry[]; deltas: BucketDeltas } {
  const deltas: BucketDeltas = new Map();
  let taken = 0;
  for (const entry of entries) {
    const adds = addsOf(entry);
    const fresh = new Set(adds.map((a) => a.id).filter((id) => !deltas.has(id)));
    if (taken > 0 && deltas.size + fresh.size > MAX_TRANSACTION_ITEMS - 1) break;
    for (const { id, scope, minute, name } of adds) {
      const bucket = deltas.get(id) ?? { scope, minute, adds: new Map<string, number>() };
      deltas.set(id, bucket);
      bucket.adds.set(name, (bucket.adds.get(name) ?? 0) + 1);
    }
    taken++;
  }
  return { group: entries.slice(0, taken), deltas };
}

/** Every +1 an entry makes: attribute `name` of the bucket (`scope`, `minute`), in its tenant's and the all-tenants scope. */
function addsOf(entry: AggregateEntry): Array<{ id: string; scope: string; minute: number; name: string }> {
  const names: Array<{ tenantId: string; minute: number; name: string }> = [];
  const sample = entry.finished;
  if (sample) {
    const at = (name: string) => names.push({ tenantId: sample.tenantId, minute: sample.minute, name });
    at(BUCKET_ATTRIBUTES.status(sample.status));
    if (sample.retried) at(BUCKET_ATTRIBUTES.retried);
    if (sample.slaMissed) at(BUCKET_ATTRIBUTES.slaMissed);
    // One more ADD in the bucket update the run makes anyway: no extra write.
    if (sample.heartbeatTimeout) at(BUCKET_ATTRIBUTES.heartbeatTimeouts);
    if (sample.startLagBucket !== undefined) at(BUCKET_ATTRIBUTES.startLag(sample.startLagBucket));
    if (sample.durationBucket !== undefined) at(BUCKET_ATTRIBUTES.duration(sample.durationBucket));
  }
  for (const shift of entry.queue) {
    const name = shift.direction === 'in' ? BUCKET_ATTRIBUTES.queuedIn : BUCKET_ATTRIBUTES.queuedOut;
    names.push({ tenantId: shift.tenantId, minute: shift.minute, name });
  }
  return names.flatMap(({ tenantId, minute, name }) =>
    [tenantId, ALL_TENANTS].map((scope) => ({ id: `${scope}\u0000${minute}`, scope, minute, name })),
  );
}

/** The reasons of a cancelled transaction (marker first, then the buckets); undefined for any other error. */
function cancellationReasons(error: unknown): TransactionCanceledException['CancellationReasons'] | undefined {
  if (!(error instanceof TransactionCanceledException) && (error as Error)?.name !== 'TransactionCanceledException')
    return undefined;
  return (error as TransactionCanceledException).CancellationReasons ?? [];
}

function bucketOfItem(item: Record<string, unknown>): MinuteBucket {
  const number = (name: string) => (typeof item[name] === 'number' ? (item[name] as number) : 0);
  const counts = Object.fromEntries(
    TERMINAL_RUN_STATUSES.map((status) => [status, number(BUCKET_ATTRIBUTES.status(status))]),
  );
  const startLag = emptyHistogram();
  const duration = emptyHistogram();
  for (const i of HISTOGRAM_CELLS) {
    startLag[i] = number(BUCKET_ATTRIBUTES.startLag(i));
    duration[i] = number(BUCKET_ATTRIBUTES.duration(i));
  }
  return {
    minute: number('minute'),
    counts,
    retried: number(BUCKET_ATTRIBUTES.retried),
    slaMissed: number(BUCKET_ATTRIBUTES.slaMissed),
    heartbeatTimeouts: number(BUCKET_ATTRIBUTES.heartbeatTimeouts),
    startLag,
    duration,
    queuedIn: number(BUCKET_ATTRIBUTES.queuedIn),
    queuedOut: number(BUCKET_ATTRIBUTES.queuedOut),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
