/**
 * Whether Chronos has finished a workload, read from its own state rather than from a lull in
 * AWS requests (a lull is what a stalled executor or a long SQS delay looks like too): no message
 * waiting, in flight or delayed on any lane's dispatch queue, its DLQ or the failure-notice queue; no run
 * of the workload's jobs outside a terminal state; every one of its jobs finished. The bench's own
 * clients read it, so none of these requests is counted as the handlers'.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { isTerminal, type RunStatus } from '#core/run-state';
import type { LocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import type { Leftovers } from './delivery.ts';

const QUEUE_COUNTS = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
] as const;
const FINISHED_JOB_STATUSES = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export interface QueueDepth {
  visible: number;
  inFlight: number;
  delayed: number;
}

export interface SystemState {
  queues: Record<'dispatch' | 'deadLetter' | 'notices', QueueDepth>;
  leftovers: Leftovers;
}

function sumDepths(depths: QueueDepth[]): QueueDepth {
  return depths.reduce(
    (sum, d) => ({
      visible: sum.visible + d.visible,
      inFlight: sum.inFlight + d.inFlight,
      delayed: sum.delayed + d.delayed,
    }),
    { visible: 0, inFlight: 0, delayed: 0 },
  );
}

/** Settled: every queue empty (nothing visible, in flight or delayed) and nothing left unfinished. */
export function isSettled(state: SystemState): boolean {
  const queued = Object.values(state.queues).reduce((sum, q) => sum + q.visible + q.inFlight + q.delayed, 0);
  return queued === 0 && state.leftovers.unfinishedRuns.size === 0 && state.leftovers.unfinishedJobs.size === 0;
}

/** One line for progress and the result file. */
export function describeState(state: SystemState): string {
  const q = (d: QueueDepth) => `${d.visible}/${d.inFlight}/${d.delayed}`;
  return (
    `queues visible/in flight/delayed: dispatch ${q(state.queues.dispatch)}, DLQ ${q(state.queues.deadLetter)}, ` +
    `notices ${q(state.queues.notices)}; unfinished runs ${state.leftovers.unfinishedRuns.size}, ` +
    `unfinished jobs ${state.leftovers.unfinishedJobs.size}`
  );
}

export interface StateReader {
  read(): Promise<SystemState>;
  destroy(): void;
}

/**
 * Reads the queues and the workload's runs and jobs (`jobIds`) of the local Chronos; with
 * `jobsStayActive`, not the jobs' statuses (a workflow's task items are never finished).
 */
export function stateReader(
  chronos: LocalChronos,
  jobIds: readonly string[],
  options: { jobsStayActive?: boolean } = {},
): StateReader {
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const sqs = new SQSClient({ ...common, endpoint: chronos.endpoints.sqs });
  const dynamodb = new DynamoDBClient({ ...common, endpoint: chronos.endpoints.dynamodb });
  const documents = DynamoDBDocument.from(dynamodb);
  const workload = new Set(jobIds);

  const depth = async (url: string): Promise<QueueDepth> => {
    const { Attributes: a = {} } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...QUEUE_COUNTS] }),
    );
    return {
      visible: Number(a.ApproximateNumberOfMessages ?? Number.NaN),
      inFlight: Number(a.ApproximateNumberOfMessagesNotVisible ?? Number.NaN),
      delayed: Number(a.ApproximateNumberOfMessagesDelayed ?? Number.NaN),
    };
  };

  const unfinishedRuns = async () => {
    const unfinished = new Set<string>();
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.scan({
        TableName: chronos.tables.runs,
        ProjectionExpression: 'jobId, scheduledFor, #status',
        ExpressionAttributeNames: { '#status': 'status' },
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      });
      for (const run of page.Items ?? []) {
        if (workload.has(run.jobId) && !isTerminal(run.status as RunStatus)) {
          unfinished.add(`${run.jobId}:${run.scheduledFor}`);
        }
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return unfinished;
  };

  const unfinishedJobs = async () => {
    const unfinished = new Set<string>();
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.query({
        TableName: chronos.tables.jobs,
        KeyConditionExpression: 'tenantId = :tenant',
        ExpressionAttributeValues: { ':tenant': chronos.tenantId },
        ProjectionExpression: 'jobId, #status',
        ExpressionAttributeNames: { '#status': 'status' },
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      });
      for (const job of page.Items ?? []) {
        if (!workload.has(job.jobId)) continue;
        if (!FINISHED_JOB_STATUSES.has(job.status)) unfinished.add(job.jobId);
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return unfinished;
  };

  return {
    async read() {
      // Every priority lane's queues, added up: a run waiting on the high or low lane is not settled either.
      const lanes = async (urls: string[]) => sumDepths(await Promise.all(urls.map(depth)));
      const { dispatch, dispatchHigh, dispatchLow, deadLetter, deadLetterHigh, deadLetterLow } = chronos.queues;
      const [dispatchDepth, deadLetterDepth, notices] = await Promise.all([
        lanes([dispatch.url, dispatchHigh.url, dispatchLow.url]),
        lanes([deadLetter.url, deadLetterHigh.url, deadLetterLow.url]),
        depth(chronos.queues.notices.url),
      ]);
      const queues = { dispatch: dispatchDepth, deadLetter: deadLetterDepth, notices };
      const jobs = options.jobsStayActive ? new Set<string>() : await unfinishedJobs();
      return { queues, leftovers: { unfinishedRuns: await unfinishedRuns(), unfinishedJobs: jobs } };
    },
    destroy() {
      sqs.destroy();
      dynamodb.destroy();
    },
  };
}
