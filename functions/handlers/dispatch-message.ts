import type { SQSRecord } from 'aws-lambda';
import type { DispatchMessage } from '#core/model';

/** The run a dispatch-queue record points at; throws for anything else. */
export function parseDispatchMessage(record: SQSRecord): DispatchMessage {
  const message = JSON.parse(record.body) as DispatchMessage;
  for (const field of ['tenantId', 'jobId', 'runId'] as const) {
    if (typeof message[field] !== 'string') throw new Error(`dispatch message ${record.messageId} lacks ${field}`);
  }
  if (!Number.isInteger(message.scheduledFor) || !Number.isInteger(message.attempt)) {
    throw new Error(`dispatch message ${record.messageId} lacks scheduledFor/attempt`);
  }
  return message;
}
