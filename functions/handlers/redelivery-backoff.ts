/**
 * How long a message whose work failed stays away before its queue hands it out again: `baseSeconds`
 * after its first receive, × 4 for each receive after (at most 15 min, SQS's longest visibility
 * change here). The first retry is quick; a lasting failure is looked at less and less often,
 * until the queue's receive limit moves it to its dead-letter queue.
 */
const MAX_BACKOFF_SECONDS = 900;

export function redeliveryBackoffSeconds(receives: number, baseSeconds: number): number {
  const previous = Math.min(Math.max(receives - 1, 0), 10);
  return Math.min(MAX_BACKOFF_SECONDS, baseSeconds * 4 ** previous);
}
