/**
 * What arrives from a queue or a stream is bounded before it is used: a dispatch message must
 * point at a run Chronos could have made, SQS attributes that are not plausible are ignored, and a
 * stream image with numbers out of range never throws and never puts NaN into the aggregates.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATEST_INSTANT } from '#core/bounds';
import type { Run } from '#core/model';
import { MalformedMessageError, parseDispatchMessage } from '#handlers/dispatch-message';
import { deliveryTimingOf, receiveCountOf } from '#handlers/run-metrics';
import { aggregateBatchOf, terminalTransitionOf } from '#handlers/stream-aggregates';

const DUE = Date.UTC(2026, 5, 1, 12, 30, 0);
const message = { tenantId: 't', jobId: 'J', runId: `J_${DUE}_1`, scheduledFor: DUE, attempt: 1 };

function sqsRecord(body: string, attributes: Record<string, string> = {}): SQSRecord {
  return { messageId: 'm-1', body, attributes } as unknown as SQSRecord;
}

describe('dispatch messages', () => {
  it('reads a message Chronos sends, keeping only the fields that find the run', () => {
    expect(parseDispatchMessage(sqsRecord(JSON.stringify({ ...message, extra: 'x'.repeat(10) })))).toEqual(message);
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['a huge scheduledFor', JSON.stringify({ ...message, scheduledFor: 9e15 })],
    ['a negative scheduledFor', JSON.stringify({ ...message, scheduledFor: -1 })],
    ['a fractional scheduledFor', JSON.stringify({ ...message, scheduledFor: DUE + 0.5 })],
    ['attempt 0', JSON.stringify({ ...message, attempt: 0 })],
    ['attempt 1000', JSON.stringify({ ...message, attempt: 1000 })],
    ['a numeric tenantId', JSON.stringify({ ...message, tenantId: 7 })],
    ['an empty jobId', JSON.stringify({ ...message, jobId: '' })],
    ['a huge runId', JSON.stringify({ ...message, runId: 'r'.repeat(5000) })],
  ])('refuses %s as a malformed message', (_what, body) => {
    expect(() => parseDispatchMessage(sqsRecord(body))).toThrow(MalformedMessageError);
  });
});

describe('SQS attributes', () => {
  it('reads plausible timestamps and receive counts', () => {
    const record = sqsRecord('{}', {
      SentTimestamp: String(DUE),
      ApproximateFirstReceiveTimestamp: String(DUE + 5),
      ApproximateReceiveCount: '3',
    });
    expect(deliveryTimingOf(record)).toEqual({ sentAt: DUE, firstReceivedAt: DUE + 5 });
    expect(receiveCountOf(record)).toBe(3);
  });

  it('ignores garbage, huge and out-of-range values instead of producing NaN or unsafe numbers', () => {
    const record = sqsRecord('{}', {
      SentTimestamp: '99999999999999999999999',
      ApproximateFirstReceiveTimestamp: 'soon',
      ApproximateReceiveCount: '1e3',
    });
    expect(deliveryTimingOf(record)).toEqual({});
    expect(receiveCountOf(record)).toBeUndefined();
    expect(deliveryTimingOf(sqsRecord('{}', { SentTimestamp: String(LATEST_INSTANT + 1) }))).toEqual({});
    expect(receiveCountOf(sqsRecord('{}', { ApproximateReceiveCount: '0' }))).toBeUndefined();
    expect(deliveryTimingOf({ messageId: 'm', body: '{}' } as unknown as SQSRecord)).toEqual({});
  });
});

const base: Run = { ...message, status: 'RUNNING', createdAt: DUE };

function streamRecord(newImage: Record<string, AttributeValue>, oldImage = marshall(base)): DynamoDBRecord {
  return {
    eventID: 'e-1',
    eventName: 'MODIFY',
    dynamodb: { SequenceNumber: '1', NewImage: newImage as never, OldImage: oldImage as never },
  };
}

describe('stream images', () => {
  it('drops optional numbers out of range and keeps the rest of the run', () => {
    const image = marshall({ ...base, status: 'SUCCEEDED', completedAt: DUE + 1000, durationMs: 1e15 });
    const run = terminalTransitionOf(streamRecord(image));
    expect(run?.status).toBe('SUCCEEDED');
    expect(run?.completedAt).toBe(DUE + 1000);
    expect(run).not.toHaveProperty('durationMs');
  });

  it('ignores an image whose key numbers JavaScript cannot hold, instead of throwing', () => {
    const image = { ...marshall({ ...base, status: 'SUCCEEDED' }), scheduledFor: { N: '1e100' } };
    const record = streamRecord(image);
    expect(terminalTransitionOf(record)).toBeUndefined();
    expect(aggregateBatchOf([record], [record], DUE).entries).toEqual([{ position: '1', queue: [] }]);
  });

  it('never throws and never yields NaN for any numbers in a terminal image', () => {
    const number = fc.oneof(
      fc.integer().map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.constantFrom('1e100', '-1e100', '123456789012345678901234567890', '0.5', '9007199254740993'),
    );
    fc.assert(
      fc.property(
        fc.record({
          scheduledFor: number,
          attempt: number,
          startedAt: number,
          completedAt: number,
          durationMs: number,
          availableAt: number,
          receivedAt: number,
          slaSeconds: number,
        }),
        (numbers) => {
          const image: Record<string, AttributeValue> = { ...marshall({ ...base, status: 'FAILED' }) };
          for (const [name, value] of Object.entries(numbers)) image[name] = { N: value };
          const record = streamRecord(image);
          const batch = aggregateBatchOf([record], [record], DUE);
          const text = JSON.stringify(batch);
          expect(text).not.toContain('null');
          for (const entry of batch.entries) {
            if (entry.finished) expect(Number.isSafeInteger(entry.finished.minute)).toBe(true);
            for (const shift of entry.queue) expect(Number.isSafeInteger(shift.minute)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
