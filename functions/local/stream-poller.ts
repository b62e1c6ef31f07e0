/**
 * Lambda's DynamoDB Streams event source mapping, locally. One reader per shard (children only
 * after their parent is drained, so per-item order holds), a short poll interval for low latency,
 * the mapping's filter patterns applied before invoking, and Lambda's partial-batch rules: retry
 * from the first reported failure, a bounded number of times, then hand the rest to `onFailure`
 * (Lambda's on-failure destination) and move on. As on AWS, a batch holds records of one shard in
 * stream order, and a retry starts with the first failed record: the completion handler's
 * count-once aggregates rely on both (functions/handlers/stream-aggregates.ts).
 */
import {
  type _Record,
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { toDynamoDbRecord } from '#adapters/dynamodb/stream-records';
import { type FilterPattern, matchesAnyPattern } from './event-filter.ts';
import { invokeLambda, type LambdaHandler } from './lambda-context.ts';

export type StreamHandler = LambdaHandler<DynamoDBStreamEvent, DynamoDBBatchResponse | undefined>;

/** What Lambda would send to the on-failure destination once retries are exhausted. */
export interface StreamBatchFailure {
  shardId: string;
  /** The records that were still failing, from the first failed one on. */
  records: DynamoDBRecord[];
  attempts: number;
  /** The handler's error, when it threw instead of reporting item failures. */
  error?: unknown;
}

export interface StreamPollerOptions {
  streams: DynamoDBStreamsClient;
  streamArn: string;
  handler: StreamHandler;
  /** The event source mapping's filter criteria; records matching none are dropped. */
  filterPatterns?: readonly FilterPattern[];
  functionName?: string;
  timeoutSeconds?: number;
  /** Records per invocation, at most 1000 (one GetRecords). Default 100, as Lambda. */
  batchSize?: number;
  /** Wait between empty GetRecords calls. */
  pollIntervalMs?: number;
  /**
   * The mapping's MaximumBatchingWindowInSeconds, in ms (default 0): records that pass the filter
   * are gathered until the batch is full or this long after the first of them, then delivered
   * together.
   */
  batchingWindowMs?: number;
  /** How often to look for new shards. */
  shardDiscoveryIntervalMs?: number;
  /** Retries after the first failed invocation of a batch (default 3). */
  maxRetries?: number;
  /** Split a batch in two when the handler throws, as BisectBatchOnFunctionError does. */
  bisectBatchOnError?: boolean;
  retryDelayMs?: number;
  startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  /**
   * Where each shard's reading resumes (the last record handled), kept across restarts, as a
   * mapping's checkpoint is: without it a restart on kept data would hand the handler every
   * record still in the stream again. Default: none (start at `startingPosition`).
   */
  checkpoints?: StreamCheckpoints;
  onFailure?: (failure: StreamBatchFailure) => void | Promise<void>;
  /** How long stop() waits for a running invocation. */
  stopGraceMs?: number;
  region?: string;
  log?: (message: string, error?: unknown) => void;
}

export interface StreamCheckpoints {
  get(shardId: string): string | undefined;
  set(shardId: string, sequenceNumber: string): void;
}

export interface RunningStreamPoller {
  stop(): Promise<void>;
}

type ShardState = 'waiting' | 'reading' | 'done';

const TRIMMED_RETRIES_BEFORE_RESTART = 5;

/** Starts discovering and reading shards; runs until stop(). */
export function startStreamPoller(options: StreamPollerOptions): RunningStreamPoller {
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));
  const functionName = options.functionName ?? 'completion';
  const pollIntervalMs = options.pollIntervalMs ?? 150;
  const maxRetries = options.maxRetries ?? 3;
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const abort = new AbortController();
  const shards = new Map<string, { parent?: string; state: ShardState }>();
  const readers: Promise<void>[] = [];
  let stopped = false;
  let discoveryTimer: NodeJS.Timeout | undefined;

  async function discover(): Promise<void> {
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await options.streams.send(
        new DescribeStreamCommand({ StreamArn: options.streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
        { abortSignal: abort.signal },
      );
      for (const shard of StreamDescription?.Shards ?? []) addShard(shard);
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId && !stopped);
    startReadableShards();
  }

  function addShard(shard: Shard): void {
    if (!shard.ShardId || shards.has(shard.ShardId)) return;
    shards.set(shard.ShardId, { parent: shard.ParentShardId, state: 'waiting' });
  }

  /** A shard is read once its parent is drained or gone (trimmed), as Lambda does. */
  function startReadableShards(): void {
    for (const [shardId, shard] of shards) {
      if (stopped || shard.state !== 'waiting') continue;
      const parent = shard.parent ? shards.get(shard.parent) : undefined;
      if (parent && parent.state !== 'done') continue;
      shard.state = 'reading';
      readers.push(
        readShard(shardId).finally(() => {
          shard.state = 'done';
          startReadableShards();
        }),
      );
    }
  }

  async function iteratorFor(shardId: string, afterSequenceNumber: string | undefined): Promise<string | undefined> {
    const { ShardIterator } = await options.streams.send(
      new GetShardIteratorCommand({
        StreamArn: options.streamArn,
        ShardId: shardId,
        ...(afterSequenceNumber
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: afterSequenceNumber }
          : { ShardIteratorType: options.startingPosition ?? 'TRIM_HORIZON' }),
      }),
      { abortSignal: abort.signal },
    );
    return ShardIterator;
  }

  async function readShard(shardId: string): Promise<void> {
    let lastSequenceNumber = options.checkpoints?.get(shardId);
    let iterator: string | undefined;
    let trimmedInARow = 0;
    const batchSize = options.batchSize ?? 100;
    /** Records read that passed the filter, not yet delivered (the batching window)... */
    let gathered: DynamoDBRecord[] = [];
    /** ...when the first of them was read, and the last sequence number read with them. */
    let gatheringSince = 0;
    let gatheredUpTo: string | undefined;
    while (!stopped) {
      let records: _Record[];
      try {
        iterator ??= await iteratorFor(shardId, lastSequenceNumber);
        if (!iterator) return;
        const page = await options.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }), {
          abortSignal: abort.signal,
        });
        records = page.Records ?? [];
        iterator = page.NextShardIterator;
        trimmedInARow = 0;
      } catch (error) {
        if (stopped) return;
        iterator = undefined;
        // Read again from the last delivered record.
        gathered = [];
        gatheredUpTo = undefined;
        if (error instanceof TrimmedDataAccessException) {
          // DynamoDB Local sometimes raises this transiently for a live position; only when it
          // persists has our position really left the retention window, and then, like Lambda,
          // we go on from the oldest record still there.
          if (++trimmedInARow >= TRIMMED_RETRIES_BEFORE_RESTART) lastSequenceNumber = undefined;
        } else if (!(error instanceof ExpiredIteratorException)) {
          log(`reading stream shard ${shardId} failed`, error);
        }
        await sleep(pollIntervalMs);
        continue;
      }
      if (records.length > 0) {
        const converted = records.map((record) => toDynamoDbRecord(record, options.streamArn, region));
        const passed = converted.filter((record) => matchesAnyPattern(record, options.filterPatterns ?? []));
        if (gathered.length === 0 && passed.length > 0) gatheringSince = Date.now();
        gathered = [...gathered, ...passed];
        gatheredUpTo = records[records.length - 1]?.dynamodb?.SequenceNumber ?? gatheredUpTo;
      }
      const closed = iterator === undefined || iterator === null;
      const windowLeft = gatheringSince + (options.batchingWindowMs ?? 0) - Date.now();
      // Lambda's batching window: a batch short of its size waits for more, up to the window.
      const waitForMore = !closed && gathered.length > 0 && gathered.length < batchSize && windowLeft > 0;
      if (!waitForMore && gatheredUpTo !== undefined) {
        while (gathered.length > 0 && !stopped) await deliver(shardId, gathered.splice(0, batchSize));
        // Stopped during the delivery: the batch may not be handled; the next start reads it again.
        if (stopped) return;
        lastSequenceNumber = gatheredUpTo;
        gatheredUpTo = undefined;
        options.checkpoints?.set(shardId, lastSequenceNumber);
      }
      if (closed && gathered.length === 0) return; // the shard is closed and drained
      if (records.length === 0) await sleep(waitForMore ? Math.min(pollIntervalMs, windowLeft) : pollIntervalMs);
    }
  }

  /** Invokes until the batch succeeds or its retries run out; `attemptsBefore` counts earlier tries of these records. */
  async function deliver(shardId: string, records: DynamoDBRecord[], attemptsBefore = 0): Promise<void> {
    let pending = records;
    for (let attempt = attemptsBefore + 1; !stopped; attempt++) {
      let firstFailed: number | undefined;
      let error: unknown;
      try {
        const response = await invokeLambda(
          options.handler,
          { Records: pending },
          { functionName, timeoutSeconds: options.timeoutSeconds ?? 30, region },
        );
        firstFailed = firstFailureIndex(response, pending);
      } catch (thrown) {
        firstFailed = 0;
        error = thrown;
      }
      if (firstFailed === undefined) return;
      pending = pending.slice(firstFailed);
      if (attempt > maxRetries) {
        log(
          `${functionName}: giving up on ${pending.length} stream record(s) of ${shardId} after ${attempt} attempts`,
          error,
        );
        await options.onFailure?.({ shardId, records: pending, attempts: attempt, ...(error ? { error } : {}) });
        return;
      }
      await sleep((options.retryDelayMs ?? 200) * attempt);
      if (error !== undefined && options.bisectBatchOnError && pending.length > 1) {
        // Lambda's BisectBatchOnFunctionError: retry each half on its own, in order, so one poison
        // record ends up alone and the others go through.
        const middle = Math.ceil(pending.length / 2);
        await deliver(shardId, pending.slice(0, middle), attempt);
        await deliver(shardId, pending.slice(middle), attempt);
        return;
      }
    }
  }

  async function discoverLoop(): Promise<void> {
    try {
      await discover();
    } catch (error) {
      if (!stopped) log(`describing stream ${options.streamArn} failed`, error);
    }
    if (!stopped) discoveryTimer = setTimeout(discoverLoop, options.shardDiscoveryIntervalMs ?? 1000);
  }
  const firstDiscovery = discoverLoop();

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(discoveryTimer);
      abort.abort();
      await firstDiscovery;
      await Promise.race([Promise.allSettled(readers), sleep(options.stopGraceMs ?? 5000)]);
    },
  };
}

/**
 * Where the retry starts, or undefined when all succeeded. Like Lambda: from the lowest failed
 * sequence number; an identifier that is empty or not in the batch fails the whole batch.
 */
function firstFailureIndex(response: DynamoDBBatchResponse | undefined, batch: DynamoDBRecord[]): number | undefined {
  const failures = response?.batchItemFailures ?? [];
  if (failures.length === 0) return undefined;
  const indexes = failures.map((failure) =>
    batch.findIndex((record) => failure.itemIdentifier && record.dynamodb?.SequenceNumber === failure.itemIdentifier),
  );
  return indexes.includes(-1) ? 0 : Math.min(...indexes);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
