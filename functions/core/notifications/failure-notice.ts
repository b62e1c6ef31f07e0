/**
 * A failure notice: what the completion handler hands to the notifier when an occurrence failed
 * for good and its job has an onFailure URL. It is queued, not called in place: a notification
 * endpoint that hangs would otherwise hold the completion batch, and with it every tenant's
 * retries and completions on that stream shard. The notice is small and bounded (ids, status and
 * an excerpt of the error), so any run fits a queue message whatever its error said.
 */
import type { ErrorType, Run } from '../model.ts';
import type { TerminalRunStatus } from '../run-state.ts';

/** Longest error excerpt a notice carries (the run keeps its own, longer one). */
export const MAX_NOTICE_ERROR_CHARS = 1_024;

export interface FailureNotice {
  tenantId: string;
  jobId: string;
  /** The occurrence that failed (epoch ms). */
  scheduledFor: number;
  /** The last attempt's number, and its run. */
  attempt: number;
  runId: string;
  status: TerminalRunStatus;
  errorType?: ErrorType;
  httpStatus?: number;
  error?: string;
}

/** Where failure notices go (the notifier's queue). */
export interface FailureNotices {
  send(notice: FailureNotice): Promise<void>;
}

/** The notice of a run that ended its occurrence as a failure, its error cut to the excerpt. */
export function failureNoticeOf(
  run: Pick<Run, 'tenantId' | 'jobId' | 'scheduledFor' | 'attempt' | 'runId' | 'errorType' | 'httpStatus' | 'error'> & {
    status: TerminalRunStatus;
  },
): FailureNotice {
  return {
    tenantId: run.tenantId,
    jobId: run.jobId,
    scheduledFor: run.scheduledFor,
    attempt: run.attempt,
    runId: run.runId,
    status: run.status,
    ...(run.errorType === undefined ? {} : { errorType: run.errorType }),
    ...(run.httpStatus === undefined ? {} : { httpStatus: run.httpStatus }),
    ...(run.error === undefined ? {} : { error: run.error.slice(0, MAX_NOTICE_ERROR_CHARS) }),
  };
}

/**
 * The notification's id: the same for every delivery of one occurrence's failure (redeliveries,
 * duplicates of the stream record), so an endpoint can drop repeats (`webhook-id`, Idempotency-Key).
 */
export function notificationIdOf(notice: Pick<FailureNotice, 'jobId' | 'scheduledFor'>): string {
  return `${notice.jobId}:${notice.scheduledFor}:failed`;
}

/** The JSON body the onFailure URL receives. */
export function notificationBodyOf(notice: FailureNotice): string {
  return JSON.stringify({
    event: 'occurrence.failed',
    jobId: notice.jobId,
    occurrence: new Date(notice.scheduledFor).toISOString(),
    attempts: notice.attempt,
    lastRun: {
      runId: notice.runId,
      status: notice.status,
      httpStatus: notice.httpStatus ?? null,
      errorType: notice.errorType ?? null,
      error: notice.error ?? null,
    },
  });
}
