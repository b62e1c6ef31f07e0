/**
 * Reading a notifier-queue record. The body is Chronos' own, but it crosses a queue: ids are
 * bounded strings, the occurrence an instant in the stored range, the attempt one the runs table
 * can hold, the status a terminal one, and the error no longer than a notice's excerpt.
 */
import type { SQSRecord } from 'aws-lambda';
import { isIntegerBetween, isRepresentableInstant, MAX_ATTEMPT_NUMBER } from '#core/bounds';
import type { ErrorType } from '#core/model';
import { type FailureNotice, MAX_NOTICE_ERROR_CHARS } from '#core/notifications/failure-notice';
import { TERMINAL_RUN_STATUSES, type TerminalRunStatus } from '#core/run-state';

const MAX_ID_LENGTH = 256;
const MAX_ERROR_TYPE_LENGTH = 64;

/** A record that is not a notice Chronos could have sent; retrying it cannot help. */
export class MalformedNoticeError extends Error {
  constructor(messageId: string, reason: string) {
    super(`failure notice ${messageId} ${reason}`);
    this.name = 'MalformedNoticeError';
  }
}

const isBoundedString = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;

/** The notice a notifier-queue record holds; throws MalformedNoticeError for anything else. */
export function parseFailureNotice(record: Pick<SQSRecord, 'messageId' | 'body'>): FailureNotice {
  const refuse = (reason: string): never => {
    throw new MalformedNoticeError(record.messageId, reason);
  };
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    return refuse('is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return refuse('is not an object');
  const notice = body as Record<string, unknown>;
  for (const field of ['tenantId', 'jobId', 'runId'] as const) {
    if (!isBoundedString(notice[field], MAX_ID_LENGTH)) refuse(`lacks a valid ${field}`);
  }
  if (!isRepresentableInstant(notice.scheduledFor)) refuse('lacks a scheduledFor in the stored range');
  if (!isIntegerBetween(notice.attempt, 1, MAX_ATTEMPT_NUMBER)) refuse('lacks a valid attempt');
  if (!(TERMINAL_RUN_STATUSES as readonly unknown[]).includes(notice.status)) refuse('lacks a terminal status');
  if (notice.errorType !== undefined && !isBoundedString(notice.errorType, MAX_ERROR_TYPE_LENGTH))
    refuse('has an invalid errorType');
  if (notice.httpStatus !== undefined && !isIntegerBetween(notice.httpStatus, 100, 999))
    refuse('has an invalid httpStatus');
  if (notice.error !== undefined && !isBoundedString(notice.error, MAX_NOTICE_ERROR_CHARS))
    refuse('has an invalid error');
  // Only the notice's own fields go on.
  return {
    tenantId: notice.tenantId as string,
    jobId: notice.jobId as string,
    scheduledFor: notice.scheduledFor as number,
    attempt: notice.attempt as number,
    runId: notice.runId as string,
    status: notice.status as TerminalRunStatus,
    ...(notice.errorType === undefined ? {} : { errorType: notice.errorType as ErrorType }),
    ...(notice.httpStatus === undefined ? {} : { httpStatus: notice.httpStatus as number }),
    ...(notice.error === undefined ? {} : { error: notice.error as string }),
  };
}
