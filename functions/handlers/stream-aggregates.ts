/**
 * What a delivery of runs-stream records adds to the monitoring aggregates (run-aggregates.ts),
 * and which of its records may be counted.
 *
 * Why the batch, not the run, is the unit of counting, and why only the records before the first
 * failure count: a batch of the completion mapping comes from one shard of the runs stream, in
 * stream order ("the number of batches to process concurrently from each shard",
 * https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html), and with ReportBatchItemFailures
 * Lambda checkpoints at the lowest sequence number reported failed and retries every record from
 * there on, bisecting a batch at the returned sequence number when BisectBatchOnFunctionError is on
 * too (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html). So
 * the records before the first failure never come back, the failed one and everything after it
 * come back as a batch that starts with the failed record, and a batch that failed as a whole
 * comes back starting with the same first record: counting the prefix before the first failure,
 * under a marker named after the batch's first record, counts every record once. (The records
 * after a failure that did succeed are counted when they come back: counting them now would count
 * them twice.) The marker is named by the record's eventID, which the DynamoDB Streams API
 * documents as globally unique (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_Record.html),
 * where sequence numbers are documented per shard only.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import type { AggregateBatch } from '#core/metrics/ports';
import { queueShiftsOf } from '#core/metrics/queue-shift';
import { sampleOf } from '#core/metrics/run-sample';
import type { Run } from '#core/model';
import { isTerminal, type TerminalRunStatus } from '#core/run-state';
import { logger } from './logger.ts';
import { isRun, runOfImage } from './run-image.ts';

/**
 * The run of one image of a record, bounded (run-image.ts). An image that holds no usable run is
 * logged and read as absent: the record then changes no job and no counter, and never throws.
 */
export function imageOf(record: DynamoDBRecord, which: 'NewImage' | 'OldImage'): Run | undefined {
  const found = runOfImage(record.dynamodb?.[which] as Record<string, unknown> | undefined);
  if (found === undefined || isRun(found)) return found;
  logger.error('runs-stream image ignored: it holds no run Chronos can read', {
    eventID: record.eventID,
    sequenceNumber: record.dynamodb?.SequenceNumber,
    image: which,
    reason: found.reason,
  });
  return undefined;
}

/** The run that just became terminal, or undefined for any other change. */
export function terminalTransitionOf(record: DynamoDBRecord): (Run & { status: TerminalRunStatus }) | undefined {
  const after = imageOf(record, 'NewImage');
  const before = imageOf(record, 'OldImage');
  if (!after || !isTerminal(after.status) || (before && isTerminal(before.status))) return undefined;
  return { ...after, status: after.status };
}

export function sequenceNumberOf(record: DynamoDBRecord): string {
  return record.dynamodb?.SequenceNumber ?? '';
}

/** The records Lambda will not deliver again: those before the first one reported failed. */
export function recordsBeforeFirstFailure(records: DynamoDBRecord[], failed: ReadonlySet<string>): DynamoDBRecord[] {
  const first = records.findIndex((record) => failed.has(sequenceNumberOf(record)));
  return first === -1 ? records : records.slice(0, first);
}

/** The aggregates of `counted` (a prefix of the delivered `records`), named after the delivery's first record. */
export function aggregateBatchOf(records: DynamoDBRecord[], counted: DynamoDBRecord[], now: number): AggregateBatch {
  const first = records[0];
  const id = first?.eventID ?? (first ? sequenceNumberOf(first) : '');
  return {
    id,
    entries: counted.map((record) => {
      const finishedRun = terminalTransitionOf(record);
      const finished = finishedRun ? sampleOf(finishedRun, now) : undefined;
      return {
        position: sequenceNumberOf(record),
        ...(finished ? { finished } : {}),
        queue: queueShiftsOf(imageOf(record, 'OldImage'), imageOf(record, 'NewImage')),
      };
    }),
  };
}
