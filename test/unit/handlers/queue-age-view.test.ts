/**
 * The oldest-message age in the system view: a number only when CloudWatch gave a datapoint,
 * otherwise null with the reason. Also how the adapter reads CloudWatch's answer (stub client).
 */
import type { CloudWatchClient, GetMetricDataCommand, GetMetricDataCommandOutput } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { oldestMessageAges, queueNameOf } from '#adapters/sqs/oldest-message-age';
import { oldestMessageAgeView } from '#handlers/api/queue-age-view';

describe('oldestMessageAgeView', () => {
  it('shows the datapoint in seconds, with the minute it belongs to', () => {
    expect(oldestMessageAgeView({ kind: 'datapoint', seconds: 42, at: Date.UTC(2026, 5, 1, 12, 30) })).toEqual({
      oldestMessageAgeSeconds: 42,
      oldestMessageAge: { source: 'cloudwatch', at: '2026-06-01T12:30:00.000Z' },
    });
  });

  it('keeps a real zero (an active, empty queue) a number', () => {
    expect(oldestMessageAgeView({ kind: 'datapoint', seconds: 0, at: 0 }).oldestMessageAgeSeconds).toBe(0);
  });

  it('shows no datapoint as null with the reason noData, never 0', () => {
    expect(oldestMessageAgeView({ kind: 'noData' })).toEqual({
      oldestMessageAgeSeconds: null,
      oldestMessageAge: { source: 'cloudwatch', reason: 'noData' },
    });
  });

  it('shows an unreadable metric as null with the error', () => {
    expect(oldestMessageAgeView({ kind: 'error', error: 'AccessDeniedException: not authorized' })).toEqual({
      oldestMessageAgeSeconds: null,
      oldestMessageAge: { source: 'cloudwatch', reason: 'error', error: 'AccessDeniedException: not authorized' },
    });
  });
});

/** A client whose GetMetricData answers `answer` (or throws it) and records the request. */
function stubClient(answer: Partial<GetMetricDataCommandOutput> | Error) {
  const sent: GetMetricDataCommand[] = [];
  const client = {
    send: async (command: GetMetricDataCommand) => {
      sent.push(command);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as CloudWatchClient;
  return { client, sent };
}

const NOW = Date.UTC(2026, 5, 1, 12, 31, 10);
const minute = (m: number) => new Date(Date.UTC(2026, 5, 1, 12, m));

describe('oldestMessageAges', () => {
  it('asks for the Maximum of AWS/SQS ApproximateAgeOfOldestMessage per queue over the last 5 minutes', async () => {
    const { client, sent } = stubClient({ MetricDataResults: [] });
    await oldestMessageAges(client, { dispatch: 'chronos-dispatch', deadLetter: 'chronos-dispatch-dlq' }, NOW);

    const input = sent[0]?.input;
    expect(input?.EndTime).toEqual(new Date(NOW));
    expect(input?.StartTime).toEqual(new Date(NOW - 5 * 60_000));
    expect(input?.MetricDataQueries?.map((query) => query.MetricStat)).toEqual(
      ['chronos-dispatch', 'chronos-dispatch-dlq'].map((name) => ({
        Metric: {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateAgeOfOldestMessage',
          Dimensions: [{ Name: 'QueueName', Value: name }],
        },
        Period: 60,
        Stat: 'Maximum',
      })),
    );
  });

  it('takes the newest datapoint of each query, whatever their order, and noData for an empty one', async () => {
    const { client } = stubClient({
      MetricDataResults: [
        { Id: 'q1', Timestamps: [], Values: [], StatusCode: 'Complete' },
        { Id: 'q0', Timestamps: [minute(28), minute(30), minute(29)], Values: [5, 17, 9], StatusCode: 'Complete' },
      ],
    });
    expect(await oldestMessageAges(client, { dispatch: 'a', deadLetter: 'b' }, NOW)).toEqual({
      dispatch: { kind: 'datapoint', seconds: 17, at: minute(30).getTime() },
      deadLetter: { kind: 'noData' },
    });
  });

  it('reports a query CloudWatch refused, and a result that is missing, as errors', async () => {
    const { client } = stubClient({
      MetricDataResults: [
        { Id: 'q0', StatusCode: 'Forbidden', Messages: [{ Code: 'Forbidden', Value: 'not allowed' }] },
      ],
    });
    expect(await oldestMessageAges(client, { dispatch: 'a', deadLetter: 'b' }, NOW)).toEqual({
      dispatch: { kind: 'error', error: 'Forbidden: not allowed' },
      deadLetter: { kind: 'error', error: 'CloudWatch returned no result for the query' },
    });
  });

  it('turns a failed call into an error reading for every queue instead of throwing', async () => {
    const denied = Object.assign(new Error('User is not authorized to perform cloudwatch:GetMetricData'), {
      name: 'AccessDenied',
    });
    const { client } = stubClient(denied);
    const reading = {
      kind: 'error',
      error: 'AccessDenied: User is not authorized to perform cloudwatch:GetMetricData',
    };
    expect(await oldestMessageAges(client, { dispatch: 'a', deadLetter: 'b' }, NOW)).toEqual({
      dispatch: reading,
      deadLetter: reading,
    });
  });
});

describe('queueNameOf', () => {
  it('takes the name from an SQS queue URL, emulator URLs included', () => {
    expect(queueNameOf('https://sqs.eu-west-1.amazonaws.com/123456789012/chronos-dev-dispatch')).toBe(
      'chronos-dev-dispatch',
    );
    expect(queueNameOf('http://127.0.0.1:4566/000000000000/chronos-local-dispatch-dlq')).toBe(
      'chronos-local-dispatch-dlq',
    );
  });
});
