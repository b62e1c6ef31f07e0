/**
 * Restarting on kept data (`npm start -- --data <dir>`): DynamoDB Local's folder still holds every
 * run, but the SQS emulator lives in memory, so the messages of the runs waiting in it are gone.
 * The scanner's sweep would send those runs again, but only once their release plus the grace
 * (60 s) has passed; a run that was RUNNING when the runtime stopped is not in the sweep index at
 * all (its claim took it out) and would wait for a message that no longer exists. So at start, every
 * run left QUEUED or RUNNING is sent again, at its release: duplicates are harmless (the claim is
 * conditional), and the executor decides what a RUNNING run's expired lease means (called again,
 * or FAILED as lost when at-most-once). Retries parked beyond the SQS delay limit are left to the
 * sweep, which sends them once they are within reach.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { fromRunItem } from '#adapters/dynamodb/run-item';
import { SqsRunDispatcher } from '#adapters/sqs/run-dispatcher';
import { MAX_SQS_DELAY_SECONDS } from '#core/limits';
import type { DispatchRequest } from '#core/ports';
import { laneOf, PRIORITIES, type Priority } from '#core/priority';
import { dispatchRequestOf, releaseAtOf } from '#core/runs/send-runs';

export interface RestoredRuns {
  /** Runs sent again, by status. */
  queued: number;
  running: number;
}

/** Sends again every unfinished run of the runs table whose message was lost with the queue. */
export async function resendRestoredRuns(deps: {
  dynamodb: DynamoDBClient;
  sqs: SQSClient;
  runsTable: string;
  /** The normal lane's dispatch queue. */
  dispatchQueueUrl: string;
  /** The other lanes' queues: a run goes back to its own lane's (unset: the normal lane's). */
  laneQueueUrls?: Partial<Record<Priority, string>>;
  now?: number;
}): Promise<RestoredRuns> {
  const now = deps.now ?? Date.now();
  const documents = DynamoDBDocumentClient.from(deps.dynamodb);
  const requests = new Map<Priority, DispatchRequest[]>(PRIORITIES.map((lane) => [lane, []]));
  const counts: RestoredRuns = { queued: 0, running: 0 };
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: deps.runsTable,
        FilterExpression: '#status IN (:queued, :running)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':queued': 'QUEUED', ':running': 'RUNNING' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const run = fromRunItem(item);
      const releaseAt = run.status === 'RUNNING' ? now : releaseAtOf(run);
      // Beyond SQS's longest delay: it waits in the sweep index, which sends it once within reach.
      if (releaseAt > now + MAX_SQS_DELAY_SECONDS * 1000) continue;
      requests.get(laneOf(run))?.push(dispatchRequestOf(run, releaseAt));
      if (run.status === 'RUNNING') counts.running++;
      else counts.queued++;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  for (const [lane, laneRequests] of requests) {
    if (laneRequests.length === 0) continue;
    const queueUrl = deps.laneQueueUrls?.[lane] ?? deps.dispatchQueueUrl;
    await new SqsRunDispatcher(deps.sqs, queueUrl).dispatch(laneRequests);
  }
  return counts;
}
