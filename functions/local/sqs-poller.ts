/**
 * Lambda's SQS event source mapping, locally: `concurrency` workers long-poll the queue, invoke the
 * handler with up to ten records, then delete every record the handler did not report in
 * `batchItemFailures`. Failed records stay invisible until the visibility timeout and come back,
 * and the queue's redrive policy moves them to the DLQ, exactly as on AWS. A handler may change a
 * record's visibility with its receipt handle meanwhile (the executor hides a claimed run's message
 * until its lease ends): the delete afterwards uses the same handle, as the event source mapping's does.
 *
 * Like the event source mapping, it scales: it starts with a few workers and adds one whenever
 * every worker is busy and a receive brought messages, up to `concurrency`; a worker beyond the first
 * few stops when its receive comes back empty and another worker is idle. Executors that wait for
 * their runs' due time (runs released early, core/release-spread.ts) then do not keep the next
 * messages from being received.
 */
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { invokeLambda, type LambdaHandler } from './lambda-context.ts';
import { toSqsRecord } from './sqs-event.ts';

export type SqsHandler = LambdaHandler<SQSEvent, SQSBatchResponse | undefined>;

export interface SqsPollerOptions {
  /** Needs `endpoint` set explicitly for fauxqs. */
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: SqsHandler;
  functionName?: string;
  timeoutSeconds?: number;
  /** Most concurrent workers, like the event source's maximum concurrency (default 8). */
  concurrency?: number;
  /** Workers kept while the queue is idle (default: the lesser of 8 and `concurrency`). */
  baseConcurrency?: number;
  /** Records per invocation, at most 10 (one ReceiveMessage). */
  batchSize?: number;
  /** Long-poll wait; short so that stop() returns quickly. */
  waitTimeSeconds?: number;
  /** How long stop() waits for running invocations before abandoning them to the visibility timeout. */
  stopGraceMs?: number;
  region?: string;
  log?: (message: string, error?: unknown) => void;
}

export interface RunningSqsPoller {
  stop(): Promise<void>;
}

const RECEIVE_ERROR_BACKOFF_MS = 500;

/** Starts the workers; they run until stop(). */
export function startSqsPoller(options: SqsPollerOptions): RunningSqsPoller {
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const abort = new AbortController();
  let stopped = false;

  const maxWorkers = Math.max(1, options.concurrency ?? 8);
  const baseWorkers = Math.max(1, Math.min(maxWorkers, options.baseConcurrency ?? 8));
  const batchSize = Math.min(options.batchSize ?? 10, 10);
  const workers = new Set<Promise<void>>();
  let busy = 0;

  function addWorker(): void {
    const worker: Promise<void> = work().finally(() => workers.delete(worker));
    workers.add(worker);
  }

  async function work(): Promise<void> {
    while (!stopped) {
      let messages: Message[];
      try {
        const received = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: options.waitTimeSeconds ?? 1,
            AttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        messages = received.Messages ?? [];
      } catch (error) {
        if (stopped) return;
        log(`receiving from ${options.queueUrl} failed`, error);
        await sleep(RECEIVE_ERROR_BACKOFF_MS);
        continue;
      }
      if (messages.length === 0) {
        // Beyond the base, an idle worker stops — unless it is the only one not busy: every other
        // worker may be holding a batch for its due second, and the event source keeps receiving
        // while it has concurrency left. Stopping the last idle worker left nobody polling until a
        // held batch ended: runs released later waited past their second (5,000-run precision burst).
        if (workers.size > baseWorkers && workers.size - busy > 1) return;
        continue;
      }
      busy++;
      // Every worker busy and messages coming: one more worker, as the event source scales up with
      // the backlog. One too many costs an empty receive, after which it stops.
      if (busy === workers.size && workers.size < maxWorkers) addWorker();
      try {
        await processBatch(messages);
      } finally {
        busy--;
      }
    }
  }

  async function processBatch(messages: Message[]): Promise<void> {
    const records = messages.map((message) => toSqsRecord(message, options.queueArn, region));
    let failedIds: Set<string>;
    try {
      const response = await invokeLambda(
        options.handler,
        { Records: records },
        { functionName: options.functionName ?? 'executor', timeoutSeconds: options.timeoutSeconds ?? 330, region },
      );
      failedIds = failuresOf(
        response,
        records.map((r) => r.messageId),
      );
    } catch (error) {
      log(
        `${options.functionName ?? 'executor'} failed; its ${records.length} message(s) return after the visibility timeout`,
        error,
      );
      return;
    }
    const done = records.filter((record) => !failedIds.has(record.messageId));
    if (done.length === 0) return;
    try {
      const result = await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: done.map((record, i) => ({ Id: String(i), ReceiptHandle: record.receiptHandle })),
        }),
      );
      if (result.Failed?.length) log(`deleting ${result.Failed.length} processed message(s) failed`, result.Failed);
    } catch (error) {
      log('deleting processed messages failed', error);
    }
  }

  for (let i = 0; i < baseWorkers; i++) addWorker();
  return {
    stop: async () => {
      stopped = true;
      abort.abort();
      await Promise.race([Promise.allSettled([...workers]), sleep(options.stopGraceMs ?? 5000)]);
    },
  };
}

/**
 * The message ids to keep. Like Lambda, a response naming an id that is not in the batch (or an
 * empty id) fails the whole batch.
 */
function failuresOf(response: SQSBatchResponse | undefined, batchIds: string[]): Set<string> {
  const failures = response?.batchItemFailures ?? [];
  const ids = new Set(failures.map((failure) => failure.itemIdentifier));
  const valid = [...ids].every((id) => typeof id === 'string' && batchIds.includes(id));
  return valid ? ids : new Set(batchIds);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
