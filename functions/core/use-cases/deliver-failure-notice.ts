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
import { type SigningKeys, signFor } from '../signing.ts';

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
      // Signed as every call is (signing.ts): webhook-id is the occurrence's failure, stable across deliveries.
      ...(await signFor(deps.signingKeys, notice.tenantId, { id, body: request.body }, deps.clock.now())),
    },
    timeoutMs: deps.config.timeoutMs,
  });
  if (result.kind === 'error') throw new NotificationFailedError(`${result.errorType}: ${result.message}`);
  if (result.status < 200 || result.status > 299) throw new NotificationFailedError(`HTTP ${result.status}`);
  return { kind: 'delivered', httpStatus: result.status };
}
