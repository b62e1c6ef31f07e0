/**
 * The notifier's work for one failure notice: POST the failure summary to the job's onFailure URL,
 * signed like every call Chronos makes. A notice whose job is gone or no longer has an onFailure
 * URL is dropped. Anything but a 2xx answer is a NotificationFailedError: the notice comes back
 * from its queue with a backoff and, after the queue's receive limit, rests in its dead-letter
 * queue (alarmed). Delivery is at least once; every delivery of one occurrence's failure carries
 * the same `webhook-id` and Idempotency-Key.
 */
import { type FailureNotice, notificationBodyOf, notificationIdOf } from '../notifications/failure-notice.ts';
import type { Clock, HttpInvoker, JobRepository } from '../ports.ts';
import { type SignedRequest, type SigningKeys, signatureHeaders } from '../signing.ts';

export interface DeliverFailureNoticeDeps {
  jobs: JobRepository;
  invoker: HttpInvoker;
  /** The tenant's secrets, as the executor signs its calls. */
  signingKeys: SigningKeys;
  clock: Pick<Clock, 'now'>;
  config: { timeoutMs: number };
}

export type DeliveryResult = { kind: 'delivered'; httpStatus: number } | { kind: 'dropped'; reason: string };

/** The endpoint did not take the notice; it is tried again later. */
export class NotificationFailedError extends Error {
  constructor(reason: string) {
    super(`failure notification not delivered: ${reason}`);
    this.name = 'NotificationFailedError';
  }
}

/** Stable across deliveries of one occurrence's failure, as the Standard Webhooks `webhook-id` asks. */
export const WEBHOOK_ID_HEADER = 'webhook-id';

/**
 * The signature headers of a notification: made by the same entry point, from the same keys, as
 * the executor's (execute-run.ts requestOf), so a change of signing scheme changes both at once.
 */
async function signedHeadersOf(
  deps: DeliverFailureNoticeDeps,
  tenantId: string,
  request: SignedRequest,
): Promise<Record<string, string>> {
  const keys = await deps.signingKeys.keysFor(tenantId);
  return signatureHeaders(request, keys, deps.clock.now());
}

/** Delivers one notice; throws NotificationFailedError when the endpoint did not take it. */
export async function deliverFailureNotice(
  deps: DeliverFailureNoticeDeps,
  notice: FailureNotice,
): Promise<DeliveryResult> {
  const job = await deps.jobs.get(notice.tenantId, notice.jobId);
  if (!job) return { kind: 'dropped', reason: 'job no longer exists' };
  if (!job.onFailureUrl) return { kind: 'dropped', reason: 'job has no onFailure URL' };
  const id = notificationIdOf(notice);
  const request = { url: job.onFailureUrl, method: 'POST', body: notificationBodyOf(notice) };
  const result = await deps.invoker.invoke({
    ...request,
    headers: {
      'content-type': 'application/json',
      'Idempotency-Key': id,
      [WEBHOOK_ID_HEADER]: id,
      ...(await signedHeadersOf(deps, notice.tenantId, request)),
    },
    timeoutMs: deps.config.timeoutMs,
  });
  if (result.kind === 'error') throw new NotificationFailedError(`${result.errorType}: ${result.message}`);
  if (result.status < 200 || result.status > 299) throw new NotificationFailedError(`HTTP ${result.status}`);
  return { kind: 'delivered', httpStatus: result.status };
}
