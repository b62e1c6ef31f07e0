/**
 * Reading a dispatch-queue record. The body is Chronos' own, but it crosses a queue: whatever
 * arrives is checked before any of it reaches a key or a write — ids are bounded strings, the
 * occurrence an instant in the stored range, the attempt one the runs table's key can hold, the
 * lane (absent: `normal`) one of the three.
 */
import type { SQSRecord } from 'aws-lambda';
import { isIntegerBetween, isRepresentableInstant, MAX_ATTEMPT_NUMBER } from '#core/bounds';
import type { DispatchMessage } from '#core/model';
import { isPriority, PRIORITIES } from '#core/priority';

/** Longest id accepted in a message (tenant, job and run ids are far shorter). */
const MAX_ID_LENGTH = 256;

/**
 * Most deferrals a message counts (tenant-run-cap.ts sendBackLater): far past where its delay
 * stops growing, so the count never needs to go higher.
 */
export const MAX_DEFERRALS = 1_000;

/** A dispatch message as the executor reads it: the run, its lane, and how often its tenant's cap sent it back. */
export type ReceivedDispatchMessage = DispatchMessage & { deferrals?: number };

/** A record that is not a dispatch message Chronos could have sent; retrying it cannot help. */
export class MalformedMessageError extends Error {
  constructor(messageId: string, reason: string) {
    super(`dispatch message ${messageId} ${reason}`);
    this.name = 'MalformedMessageError';
  }
}

/** The run a dispatch-queue record points at; throws MalformedMessageError for anything else. */
export function parseDispatchMessage(record: SQSRecord): ReceivedDispatchMessage {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    throw new MalformedMessageError(record.messageId, 'is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new MalformedMessageError(record.messageId, 'is not an object');
  }
  const message = body as Record<string, unknown>;
  for (const field of ['tenantId', 'jobId', 'runId'] as const) {
    const value = message[field];
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
      throw new MalformedMessageError(record.messageId, `lacks a valid ${field}`);
    }
  }
  if (!isRepresentableInstant(message.scheduledFor)) {
    throw new MalformedMessageError(record.messageId, 'lacks a scheduledFor in the stored range');
  }
  if (!isIntegerBetween(message.attempt, 1, MAX_ATTEMPT_NUMBER)) {
    throw new MalformedMessageError(record.messageId, `lacks an attempt from 1 to ${MAX_ATTEMPT_NUMBER}`);
  }
  // A lane Chronos never names is not a message it sent: were it read as `normal`, a message sent
  // back (a tenant at its cap) would silently change lanes.
  if (message.priority !== undefined && !isPriority(message.priority)) {
    throw new MalformedMessageError(
      record.messageId,
      `names no lane (priority must be one of ${PRIORITIES.join(', ')})`,
    );
  }
  // Only the fields that find the run (and its lane) go on, with the deferral count that paces a
  // throttled run's next send back (a count out of range only tunes a delay: it is dropped, not refused).
  const { tenantId, jobId, runId, scheduledFor, attempt, priority } = message as unknown as DispatchMessage;
  const deferrals = isIntegerBetween(message.deferrals, 1, MAX_DEFERRALS) ? message.deferrals : undefined;
  return {
    tenantId,
    jobId,
    runId,
    scheduledFor,
    attempt,
    ...(priority === undefined ? {} : { priority }),
    ...(deferrals === undefined ? {} : { deferrals }),
  };
}
