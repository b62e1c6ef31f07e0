/** Product limits that the API, the executor and the infrastructure must agree on. */

/** Largest per-job HTTP timeout; the executor Lambda's own timeout is derived from it. */
export const MAX_TIMEOUT_SECONDS = 300;
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** SQS caps DelaySeconds at 15 minutes; runs due later wait in DynamoDB for the scanner. */
export const MAX_SQS_DELAY_SECONDS = 900;

/** Extra lease time beyond the HTTP timeout, so a slow but live executor is not taken over. */
export const DEFAULT_LEASE_MARGIN_SECONDS = 30;

/**
 * Dispatch messages per executor invocation: the deployed event source's batch size and the local
 * poller's. Fewer invocations and SQS receives per run; a slow target holds at most this many runs
 * of one invocation, each still called at its own time (records run in parallel).
 */
export const EXECUTOR_BATCH_SIZE = 10;

/**
 * Runs-stream records per completion invocation, deployed and locally. Three records of each run
 * reach the handler (created, claimed, finished): large batches keep its invocations, and the
 * count-once transactions of the monitoring aggregates (one per batch), few.
 */
export const COMPLETION_BATCH_SIZE = 100;
/**
 * How long the completion handler's event source gathers runs-stream records before it invokes
 * (MaximumBatchingWindowInSeconds), deployed: the aggregates' transaction, one per invocation, is
 * shared by the records of a second instead of paid by each trickling record.
 */
export const COMPLETION_BATCHING_WINDOW_SECONDS = 1;
/** Runs-stream records the completion handler receives per run attempt: created, claimed, finished. */
export const COMPLETION_RECORDS_PER_RUN = 3;

/** Largest request body the API accepts (a job with its target body and headers). */
export const MAX_REQUEST_BODY_BYTES = 256 * 1024;
