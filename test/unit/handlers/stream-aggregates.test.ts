/** Which records of a runs-stream delivery the completion handler counts, and under which batch name. */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { minuteOf } from '#core/metrics/run-sample';
import type { Run } from '#core/model';
import { aggregateBatchOf, recordsBeforeFirstFailure } from '#handlers/stream-aggregates';

const DUE = Date.UTC(2026, 5, 1, 12, 30, 0);
const base: Run = {
  tenantId: 't',
  jobId: 'j',
  scheduledFor: DUE,
  attempt: 1,
  runId: 'r',
  status: 'QUEUED',
  createdAt: 1,
};

function record(
  sequenceNumber: string,
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  before?: Partial<Run>,
  after?: Partial<Run>,
): DynamoDBRecord {
  const image = (run: Partial<Run>) => marshall({ ...base, ...run }) as never;
  return {
    eventID: `event-${sequenceNumber}`,
    eventName,
    dynamodb: {
      SequenceNumber: sequenceNumber,
      ...(before ? { OldImage: image(before) } : {}),
      ...(after ? { NewImage: image(after) } : {}),
    },
  };
}

const inserted = record('100', 'INSERT', undefined, {});
const claimed = record('200', 'MODIFY', {}, { status: 'RUNNING', claimedAt: DUE });
const succeeded = record('300', 'MODIFY', { status: 'RUNNING' }, { status: 'SUCCEEDED', completedAt: DUE + 1_000 });
const cancelledInQueue = record('1000', 'MODIFY', {}, { status: 'CANCELLED', completedAt: DUE + 2_000 });
const discarded = record('1100', 'REMOVE', {}, undefined);

describe('the records a delivery may count', () => {
  it('are all of them when none failed', () => {
    const records = [inserted, claimed, succeeded];
    expect(recordsBeforeFirstFailure(records, new Set())).toEqual(records);
  });

  it('are those before the first failed one: the rest comes back in a batch of its own', () => {
    const records = [inserted, claimed, succeeded, cancelledInQueue];
    // 200 failed; 300 succeeded but is redelivered with it, so it must not be counted now.
    expect(recordsBeforeFirstFailure(records, new Set(['1000', '200']))).toEqual([inserted]);
    expect(recordsBeforeFirstFailure(records, new Set(['100']))).toEqual([]);
  });
});

describe('the aggregates of a delivery', () => {
  it("is named after the delivery's first record, whatever prefix is counted", () => {
    const records = [inserted, claimed, succeeded];
    expect(aggregateBatchOf(records, records.slice(0, 1), DUE).id).toBe('event-100');
    expect(aggregateBatchOf(records, records, DUE).id).toBe('event-100');
  });

  it('turns each record into its position, the run it finished and its queue moves', () => {
    const records = [inserted, claimed, succeeded, cancelledInQueue, discarded];
    const { entries } = aggregateBatchOf(records, records, DUE + 5_000);
    const due = minuteOf(DUE);

    expect(entries.map((e) => e.position)).toEqual(['100', '200', '300', '1000', '1100']);
    expect(entries.map((e) => e.queue.map((q) => `${q.direction}@${q.minute - due}`))).toEqual([
      ['in@0'],
      ['out@0'],
      [],
      ['out@0'],
      ['out@0'],
    ]);
    expect(entries.map((e) => e.finished?.status)).toEqual([undefined, undefined, 'SUCCEEDED', 'CANCELLED', undefined]);
    expect(entries[2]?.finished).toMatchObject({ tenantId: 't', minute: minuteOf(DUE + 1_000) });
  });

  it('never counts a terminal run rewritten (terminal to terminal) as finished again', () => {
    const rewritten = record('400', 'MODIFY', { status: 'FAILED' }, { status: 'FAILED', error: 'x' });
    expect(aggregateBatchOf([rewritten], [rewritten], DUE).entries[0]).toEqual({ position: '400', queue: [] });
  });
});
