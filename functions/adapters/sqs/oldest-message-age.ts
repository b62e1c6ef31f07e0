/**
 * Age of the oldest message of a queue. SQS has no queue attribute for it: it exists only as the
 * CloudWatch metric AWS/SQS ApproximateAgeOfOldestMessage (dimension QueueName), which SQS
 * publishes once a minute for active queues (0 for an active, empty queue). Read with one
 * GetMetricData call for every queue asked about.
 */
import { type CloudWatchClient, GetMetricDataCommand, type MetricDataResult } from '@aws-sdk/client-cloudwatch';

/** What CloudWatch said about one queue. Never a made-up number: no datapoint is `noData`. */
export type OldestMessageAge =
  /** The newest datapoint: the maximum age (seconds) over the minute that starts at `at` (epoch ms). */
  | { kind: 'datapoint'; seconds: number; at: number }
  /** CloudWatch answered, without a datapoint in the window (queue idle for hours, or unknown). */
  | { kind: 'noData' }
  /** CloudWatch could not be read (denied, throttled, unreachable, timed out). */
  | { kind: 'error'; error: string };

const PERIOD_SECONDS = 60;
/** SQS metrics reach CloudWatch a minute or two late: look back far enough to find the newest. */
const WINDOW_MS = 5 * 60_000;
/** Well inside the API function's timeout: a slow CloudWatch must not take the system view with it. */
const TIMEOUT_MS = 3_000;

/** The queue name in an SQS queue URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`). */
export function queueNameOf(queueUrl: string): string {
  const name = new URL(queueUrl).pathname.split('/').filter(Boolean).at(-1);
  if (!name) throw new Error(`No queue name in the queue URL ${queueUrl}`);
  return name;
}

/**
 * Reads the newest ApproximateAgeOfOldestMessage datapoint of each queue (by name), keyed as
 * given. Does not throw: a failed call is an `error` reading for every queue.
 */
export async function oldestMessageAges<K extends string>(
  client: CloudWatchClient,
  queueNames: Record<K, string>,
  now = Date.now(),
): Promise<Record<K, OldestMessageAge>> {
  const keys = Object.keys(queueNames) as K[];
  // Query ids must start with a lower-case letter and be unique: q0, q1, ...
  const idOf = (index: number) => `q${index}`;
  let results: MetricDataResult[];
  try {
    const output = await client.send(
      new GetMetricDataCommand({
        StartTime: new Date(now - WINDOW_MS),
        EndTime: new Date(now),
        ScanBy: 'TimestampDescending',
        MetricDataQueries: keys.map((key, index) => ({
          Id: idOf(index),
          ReturnData: true,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/SQS',
              MetricName: 'ApproximateAgeOfOldestMessage',
              Dimensions: [{ Name: 'QueueName', Value: queueNames[key] }],
            },
            Period: PERIOD_SECONDS,
            Stat: 'Maximum',
          },
        })),
      }),
      { abortSignal: AbortSignal.timeout(TIMEOUT_MS) },
    );
    results = output.MetricDataResults ?? [];
  } catch (error) {
    const failure = error as Error;
    const reading: OldestMessageAge = { kind: 'error', error: `${failure.name}: ${failure.message}` };
    return Object.fromEntries(keys.map((key) => [key, reading])) as Record<K, OldestMessageAge>;
  }
  return Object.fromEntries(
    keys.map((key, index) => [key, readingOf(results.find((result) => result.Id === idOf(index)))]),
  ) as Record<K, OldestMessageAge>;
}

function readingOf(result: MetricDataResult | undefined): OldestMessageAge {
  if (!result) return { kind: 'error', error: 'CloudWatch returned no result for the query' };
  // PartialData only means more pages; the first page of a descending scan holds the newest point.
  if (result.StatusCode === 'Forbidden' || result.StatusCode === 'InternalError') {
    const detail = (result.Messages ?? []).map((message) => message.Value ?? message.Code).join('; ');
    return { kind: 'error', error: `${result.StatusCode}${detail ? `: ${detail}` : ''}` };
  }
  const timestamps = result.Timestamps ?? [];
  const values = result.Values ?? [];
  let newest: { seconds: number; at: number } | undefined;
  for (const [index, timestamp] of timestamps.entries()) {
    const seconds = values[index];
    if (seconds === undefined) continue;
    if (!newest || timestamp.getTime() > newest.at) newest = { seconds, at: timestamp.getTime() };
  }
  return newest ? { kind: 'datapoint', ...newest } : { kind: 'noData' };
}
