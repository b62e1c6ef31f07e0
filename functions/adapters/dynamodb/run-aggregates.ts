/**
 * Run aggregates in the metrics table: every finished run adds one to its status count and one to
 * a start-lag and a duration histogram cell, in its tenant's minute bucket and in the all-tenants
 * bucket (atomic ADDs).
 *
 * Exactly once per run: the ADDs and a conditional put of a per-run marker item go in one
 * TransactWriteItems, so a stream record delivered twice finds the marker and adds nothing, and a
 * crash never leaves counts without their marker (or the reverse). The price is the transaction:
 * twice the write units of plain updates, on a marker (under 100 bytes) and each touched bucket;
 * a batch of runs shares one transaction, each bucket updated once with the batch's summed deltas,
 * so the buckets, not the runs, set the cost. The alternative of keeping counted run ids inside the
 * bucket item would make every update pay for an ever larger item.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { emptyHistogram } from '#core/metrics/lag-histogram';
import type { MinuteBucket } from '#core/metrics/minute-bucket';
import { ALL_TENANTS, type RunAggregates } from '#core/metrics/ports';
import type { RunSample } from '#core/metrics/run-sample';
import { TERMINAL_RUN_STATUSES } from '#core/run-state';
import {
  BUCKET_ATTRIBUTES,
  BUCKET_TTL_SECONDS,
  bucketKey,
  countedKey,
  HISTOGRAM_CELLS,
  MARKER_TTL_SECONDS,
} from './metrics-keys.ts';
import { METRICS_TABLE } from './table-definitions.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Runs per transaction: a marker each plus at most two buckets each stays under the 100-item limit. */
const RUNS_PER_TRANSACTION = 30;
const CONFLICT_RETRIES = 6;

export class DynamoRunAggregates implements RunAggregates {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

  async add(samples: RunSample[]): Promise<number> {
    const unique = [...new Map(samples.map((s) => [s.runId, s])).values()];
    let added = 0;
    for (let i = 0; i < unique.length; i += RUNS_PER_TRANSACTION) {
      added += await this.addChunk(unique.slice(i, i + RUNS_PER_TRANSACTION));
    }
    return added;
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

  /** Adds the chunk in one transaction; markers found already there drop their run and the rest is retried. */
  private async addChunk(chunk: RunSample[]): Promise<number> {
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      try {
        await this.client.send(new TransactWriteCommand({ TransactItems: this.itemsFor(pending) }));
        return pending.length;
      } catch (error) {
        if (
          !(error instanceof TransactionCanceledException) &&
          (error as Error).name !== 'TransactionCanceledException'
        )
          throw error;
        const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
        // Markers come first, one per pending run, in order.
        const counted = new Set(
          pending.filter((_, i) => reasons[i]?.Code === 'ConditionalCheckFailed').map((s) => s.runId),
        );
        const conflict = reasons.some((r) => r.Code === 'TransactionConflict');
        if (counted.size === 0 && (!conflict || attempt >= CONFLICT_RETRIES)) throw error;
        pending = pending.filter((s) => !counted.has(s.runId));
        // Another batch was updating the same bucket: back off with jitter before trying again.
        if (counted.size === 0) await sleep(Math.random() * 25 * 2 ** attempt);
      }
    }
    return 0;
  }

  private itemsFor(samples: RunSample[]): TransactItem[] {
    const nowSeconds = Math.floor(this.now() / 1000);
    const markers: TransactItem[] = samples.map((sample) => ({
      Put: {
        TableName: this.tableName,
        Item: { ...countedKey(sample.runId), tenantId: sample.tenantId, expiresAt: nowSeconds + MARKER_TTL_SECONDS },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': METRICS_TABLE.partitionKey },
      },
    }));
    // One update per bucket item: a transaction may touch an item only once.
    const deltas = new Map<string, { scope: string; minute: number; adds: Map<string, number> }>();
    for (const sample of samples) {
      for (const scope of [sample.tenantId, ALL_TENANTS]) {
        const id = `${scope}\u0000${sample.minute}`;
        const entry = deltas.get(id) ?? { scope, minute: sample.minute, adds: new Map<string, number>() };
        deltas.set(id, entry);
        const add = (name: string) => entry.adds.set(name, (entry.adds.get(name) ?? 0) + 1);
        add(BUCKET_ATTRIBUTES.status(sample.status));
        if (sample.retried) add(BUCKET_ATTRIBUTES.retried);
        if (sample.slaMissed) add(BUCKET_ATTRIBUTES.slaMissed);
        if (sample.startLagBucket !== undefined) add(BUCKET_ATTRIBUTES.startLag(sample.startLagBucket));
        if (sample.durationBucket !== undefined) add(BUCKET_ATTRIBUTES.duration(sample.durationBucket));
      }
    }
    const updates: TransactItem[] = [...deltas.values()].map(({ scope, minute, adds }) => {
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
    return [...markers, ...updates];
  }
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
    startLag,
    duration,
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
