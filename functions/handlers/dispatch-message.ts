/**
 * Reading a dispatch-queue record. The body is Chronos' own, but it crosses a queue: whatever
 * arrives is checked before any of it reaches a key or a write — ids are bounded strings, the
 * occurrence an instant in the stored range, the attempt one the runs table's key can hold.
 */
import type { SQSRecord } from 'aws-lambda';
import { isIntegerBetween, isRepresentableInstant, MAX_ATTEMPT_NUMBER } from '#core/bounds';
import type { DispatchMessage } from '#core/model';

/** Longest id accepted in a message (tenant, job and run ids are far shorter). */
const MAX_ID_LENGTH = 256;

/** A record that is not a dispatch message Chronos could have sent; retrying it cannot help. */
export class MalformedMessageError extends Error {
  constructor(messageId: string, reason: string) {
    super(`dispatch message ${messageId} ${reason}`);
    this.name = 'MalformedMessageError';
  }
}

/** The run a dispatch-queue record points at; throws MalformedMessageError for anything else. */
export function parseDispatchMessage(record: SQSRecord): DispatchMessage {
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
  // Only the fields that find the run go on; anything else the body carried is left behind.
  const { tenantId, jobId, runId, scheduledFor, attempt } = message as unknown as DispatchMessage;
  return { tenantId, jobId, runId, scheduledFor, attempt };
}
