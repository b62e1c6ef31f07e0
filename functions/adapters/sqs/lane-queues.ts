/**
 * The dispatch queues of the priority lanes (core/priority.ts): one per lane, each with its own
 * executor event source. A message goes to its run's lane; an executor record names the queue it
 * came from by its `eventSourceARN`, and its visibility is changed on that queue.
 */
import { ENV, requiredEnv } from '#adapters/environment';
import { isPriority, PRIORITIES, type Priority } from '#core/priority';

/** The queue URL of each lane. */
export type LaneQueueUrls = Readonly<Record<Priority, string>>;

/** The lanes' dispatch queues from the environment (DISPATCH_QUEUE_URL is `normal`'s); a missing one is a deployment error. */
export function laneQueueUrlsFromEnv(): LaneQueueUrls {
  return {
    high: requiredEnv(ENV.dispatchQueueUrlHigh),
    normal: requiredEnv(ENV.dispatchQueueUrl),
    low: requiredEnv(ENV.dispatchQueueUrlLow),
  };
}

/** The lane a message names: absent (or, from old data, anything but a lane) is `normal`. */
export function laneOfMessage(message: { priority?: unknown }): Priority {
  return isPriority(message.priority) ? message.priority : 'normal';
}

/**
 * The URL of the lane queue an SQS record came from, matched by queue name: the last segment of
 * its `eventSourceARN` (`arn:aws:sqs:<region>:<account>:<name>`) and of the queue URL
 * (`https://…/<account>/<name>`), the same for AWS and the local emulator. Undefined for a record
 * from a queue that is not a lane (or without an ARN).
 */
export function laneQueueUrlOfSource(urls: LaneQueueUrls, eventSourceArn: string | undefined): string | undefined {
  const name = eventSourceArn?.split(':').at(-1);
  if (!name) return undefined;
  return PRIORITIES.map((lane) => urls[lane]).find((url) => url.split('/').at(-1) === name);
}
