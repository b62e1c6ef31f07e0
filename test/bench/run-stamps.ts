/**
 * The stored timestamps of a workload's runs (created, sent, first received, claimed, started), read with
 * the bench's own client after the workload settled: they say which stage a late call lost its
 * time in. Not counted as the handlers' requests.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import type { LocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import type { RunStamps } from './precision.ts';

export async function readRunStamps(chronos: LocalChronos, jobIds: readonly string[]): Promise<RunStamps[]> {
  const dynamodb = new DynamoDBClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: chronos.endpoints.dynamodb,
  });
  const documents = DynamoDBDocument.from(dynamodb);
  const workload = new Set(jobIds);
  const stamps: RunStamps[] = [];
  try {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.scan({
        TableName: chronos.tables.runs,
        ProjectionExpression: 'jobId, scheduledFor, createdAt, enqueuedAt, receivedAt, claimedAt, startedAt',
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      });
      for (const run of page.Items ?? []) {
        if (!workload.has(run.jobId)) continue;
        stamps.push({
          scheduledFor: Number(run.scheduledFor),
          ...(typeof run.createdAt === 'number' ? { createdAt: run.createdAt } : {}),
          ...(typeof run.enqueuedAt === 'number' ? { enqueuedAt: run.enqueuedAt } : {}),
          ...(typeof run.receivedAt === 'number' ? { receivedAt: run.receivedAt } : {}),
          ...(typeof run.claimedAt === 'number' ? { claimedAt: run.claimedAt } : {}),
          ...(typeof run.startedAt === 'number' ? { startedAt: run.startedAt } : {}),
        });
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  } finally {
    dynamodb.destroy();
  }
  return stamps;
}
