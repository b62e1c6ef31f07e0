/**
 * One chaos worker process: `tsx test/chaos/worker-process.ts '<WorkerSettings JSON>'`, forked by
 * the coordinator with an IPC channel. It runs one part of local Chronos against the shared
 * emulators, with the real handler modules, and reports to the coordinator:
 *  - executor: only the dispatch-queue poller; the start and end of every batch with its run ids,
 *    so the coordinator knows which runs a killed process held;
 *  - scanner: only the scanner schedule; the start and end of every scan. Once armed, it holds
 *    the first dispatch send of runs it created in the current scan (after the run puts, before
 *    the messages go out and before the jobs advance) and reports it, so that the SIGKILL that
 *    follows lands mid-scan at the protocol's most fragile point. Armed for a catch-up, it only
 *    holds a send carrying runs of occurrences long past (a misfire catch-up). It also reports
 *    every dispatch send that failed (the SQS outage), with its runs.
 *  - completion: only the runs stream's mapping and the completion handler, going on from the
 *    checkpoint the killed process left (reported after every page, as the mapping keeps it).
 *    Told to hold, it freezes every AWS call once a batch has made its first write, so the
 *    SIGKILL lands mid-batch; told to hold a workflow step, once a batch has put a task's first
 *    attempt (its workflow run not yet written);
 *  - dead-letter: only the DLQ consumer. Told to hold, it freezes on the next batch before the
 *    handler records anything;
 *  - api: only the API, on the port every API process shares. Told to hold, it keeps the answer
 *    of the next create whose job is written, so the client never hears of it; told to hold a
 *    trigger, it freezes once a workflow trigger has sent its first tasks' runs (the workflow run
 *    not yet naming them).
 * Every role but the scanner's also reports its failed dispatch sends. An executor fails every
 * message of a poison job's first attempt (the poison case): it comes back a second later, until
 * SQS moves it to the dead-letter queue.
 */

import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { registerClientMiddleware } from '#adapters/aws-clients';
import type { ApiHandler, AuthorizerHandler } from '#local/api-gateway';
import { startLocalChronos } from '#local/chronos-local';
import { createLocalClients } from '#local/emulators/local-clients';
import { runInInvocationScope } from '#local/invoke-store';
import type { ScannerHandler } from '#local/scanner-timer';
import type { SqsHandler } from '#local/sqs-poller';
import type { StreamHandler } from '#local/stream-poller';
import { API_MODULES } from './api-modules.ts';
import type { ArmMode, CoordinatorMessage, HoldMode, WorkerMessage, WorkerSettings } from './shared-options.ts';

const settings = JSON.parse(process.argv[2] ?? '{}') as WorkerSettings;
const report = (message: WorkerMessage) => process.send?.(message);
process.on('disconnect', () => process.exit(0));

const runIdsOf = (event: SQSEvent) => event.Records.map((record) => String(JSON.parse(record.body).runId));

// The real modules are imported once startLocalChronos has set the environment their wiring reads.
let realExecutor: Promise<SqsHandler> | undefined;
const loadExecutor = () => {
  realExecutor ??= import('#handlers/executor').then((module) => module.handler as unknown as SqsHandler);
  return realExecutor;
};
let realScanner: Promise<ScannerHandler> | undefined;
const loadScanner = () => {
  realScanner ??= import('#handlers/scanner').then((module) => module.handler as unknown as ScannerHandler);
  return realScanner;
};

const poisonJobIds = new Set(settings.poisonJobIds ?? []);
/** How soon a poison message comes back: it reaches the DLQ after maxReceiveCount quick rounds. */
const POISON_COMES_BACK_SECONDS = 1;
const isPoison = (body: { jobId?: unknown; attempt?: unknown }) =>
  poisonJobIds.has(String(body.jobId)) && body.attempt === 1;
let sqsClient: ReturnType<typeof createLocalClients>['sqs'] | undefined;

/**
 * Fails a poison message as a handler crashing on it would, only sooner: back on the queue in a
 * second rather than after the visibility timeout, so SQS gives it to the DLQ within the run.
 */
async function refusePoison(record: SQSEvent['Records'][number]): Promise<void> {
  const body = JSON.parse(record.body);
  report({
    type: 'poison-refused',
    runId: String(body.runId),
    receiveCount: Number(record.attributes.ApproximateReceiveCount),
  });
  sqsClient ??= createLocalClients(settings.shared.endpoints as NonNullable<typeof settings.shared.endpoints>).sqs;
  const queueUrl = (await chronos).queues.dispatch.url;
  await sqsClient
    .send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: queueUrl,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: POISON_COMES_BACK_SECONDS,
      }),
    )
    .catch(() => undefined); // then it comes back after the visibility timeout
}

const executor: SqsHandler = async (event, context) => {
  const handler = await loadExecutor();
  report({ type: 'batch-start', id: context.awsRequestId, runIds: runIdsOf(event) });
  try {
    const poison = event.Records.filter((record) => isPoison(JSON.parse(record.body)));
    const others = event.Records.filter((record) => !poison.includes(record));
    await Promise.all(poison.map(refusePoison));
    const response = others.length > 0 ? await handler({ Records: others }, context) : undefined;
    return {
      batchItemFailures: [
        ...(response?.batchItemFailures ?? []),
        ...poison.map((record) => ({ itemIdentifier: record.messageId })),
      ],
    };
  } finally {
    report({ type: 'batch-end', id: context.awsRequestId });
  }
};

/** What this completion, dead-letter or API process was told to hold next. */
let holdNext: HoldMode | undefined;
/** Writes of the completion batch in progress, counted once holding is asked for. */
let writesInBatch = 0;
let inBatch = false;
const hang = () => new Promise<never>(() => undefined);

/** Holds: reports what is held and freezes every AWS call of the process until the SIGKILL. */
function holdHere(mode: HoldMode, runIds: string[], jobNames: string[], taskRunId?: string): Promise<never> {
  holdNext = undefined;
  frozen = true;
  report({ type: 'held', mode, runIds, jobNames, writesDone: writesInBatch, ...(taskRunId ? { taskRunId } : {}) });
  return hang();
}

/** The run id of a put's item (marshalled or not). */
const putRunIdOf = (input: unknown) => {
  const runId = (input as { Item?: { runId?: { S?: string } | string } }).Item?.runId;
  return typeof runId === 'string' ? runId : runId?.S;
};
/** A workflow task's first attempt (`wf…v<n>t<i>_<occurrence>_1`): what a workflow step puts when it starts a task. */
const isTaskFirstAttempt = (runId: string | undefined) => runId !== undefined && /^wf\w+_\d+_1$/.test(runId);

const DYNAMODB_WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);
let heldRunIds: string[] = [];

/**
 * Watches the AWS calls of a completion, dead-letter or API process: freezes them once it holds,
 * counts the completion batch's writes (the first one done, it holds: mid-batch), and reports
 * every dispatch send that failed.
 */
function watchCalls(): void {
  registerClientMiddleware((service, stack) => {
    stack.add(
      (next, context) => async (args) => {
        if (frozen) return hang();
        try {
          const result = await next(args);
          if (holdNext === 'mid-trigger' && service === 'SQS' && context.commandName === 'SendMessageBatchCommand') {
            const entries = (args.input as { Entries?: Array<{ MessageBody?: string }> }).Entries ?? [];
            const sent = entries.map((entry) => String(JSON.parse(entry.MessageBody ?? '{}').runId));
            const task = sent.find(isTaskFirstAttempt);
            if (task) return holdHere('mid-trigger', sent, [], task);
          }
          if (service === 'DynamoDB' && DYNAMODB_WRITES.has(context.commandName ?? '') && inBatch) {
            writesInBatch++;
            if (holdNext === 'mid-batch') return holdHere('mid-batch', heldRunIds, []);
            const putRunId = context.commandName === 'PutItemCommand' ? putRunIdOf(args.input) : undefined;
            if (holdNext === 'mid-step' && isTaskFirstAttempt(putRunId))
              return holdHere('mid-step', heldRunIds, [], putRunId);
          }
          return result;
        } catch (error) {
          if (service === 'SQS' && context.commandName === 'SendMessageBatchCommand') {
            const entries = (args.input as { Entries?: Array<{ MessageBody?: string }> }).Entries ?? [];
            report({
              type: 'unsent',
              runIds: entries.map((entry) => String(JSON.parse(entry.MessageBody ?? '{}').runId)),
            });
          }
          throw error;
        }
      },
      { step: 'build', name: 'chaosWorkerWatch' },
    );
  });
}

const streamRunIds = (event: DynamoDBStreamEvent) =>
  event.Records.map((record) => record.dynamodb?.NewImage?.runId?.S ?? record.dynamodb?.Keys?.runId?.S ?? '?');

let realCompletion: Promise<StreamHandler> | undefined;
const loadCompletion = () => {
  realCompletion ??= import('#handlers/completion').then((module) => module.handler as unknown as StreamHandler);
  return realCompletion;
};
const completion: StreamHandler = async (event, context) => {
  const handler = await loadCompletion();
  heldRunIds = streamRunIds(event);
  report({ type: 'batch-start', id: context.awsRequestId, runIds: heldRunIds });
  writesInBatch = 0;
  inBatch = true;
  try {
    return await handler(event, context);
  } finally {
    inBatch = false;
    report({ type: 'batch-end', id: context.awsRequestId });
  }
};

let realDeadLetter: Promise<SqsHandler> | undefined;
const loadDeadLetter = () => {
  realDeadLetter ??= import('#handlers/dead-letter').then((module) => module.handler as unknown as SqsHandler);
  return realDeadLetter;
};
const deadLetter: SqsHandler = async (event, context) => {
  const handler = await loadDeadLetter();
  report({ type: 'batch-start', id: context.awsRequestId, runIds: runIdsOf(event) });
  try {
    if (holdNext === 'dead-letter') return await holdHere('dead-letter', runIdsOf(event), []);
    return await handler(event, context);
  } finally {
    report({ type: 'batch-end', id: context.awsRequestId });
  }
};

/**
 * Every API handler but create-job (wrapped below), and the authorizer: each imports its module on
 * its first request, once startLocalChronos has set the environment their wiring reads.
 */
function apiHandlers(): { api: Record<string, ApiHandler>; authorizer: AuthorizerHandler } {
  const api: Record<string, ApiHandler> = { 'create-job': createJob };
  for (const [name, load] of Object.entries(API_MODULES)) {
    api[name] = async (event, context) => ((await load()).handler as ApiHandler)(event, context);
  }
  const authorizer: AuthorizerHandler = async (event, context) =>
    ((await import('#handlers/authorizer')).handler as unknown as AuthorizerHandler)(event, context);
  return { api, authorizer };
}

/** Imports every API module now, so that the first requests after a restart do not pay for it. */
const preloadApi = () =>
  Promise.all([loadCreateJob(), import('#handlers/authorizer'), ...Object.values(API_MODULES).map((load) => load())]);

let realCreateJob: Promise<ApiHandler> | undefined;
const loadCreateJob = () => {
  realCreateJob ??= import('#handlers/api/create-job').then((module) => module.handler as unknown as ApiHandler);
  return realCreateJob;
};
const createJob: ApiHandler = async (event, context) => {
  const handler = await loadCreateJob();
  const name = (() => {
    try {
      return String(JSON.parse(event.body ?? '{}').name);
    } catch {
      return '?';
    }
  })();
  report({ type: 'batch-start', id: context.awsRequestId, runIds: [], jobNames: [name] });
  try {
    const response = await handler(event, context);
    if (holdNext === 'mid-create' && response.statusCode === 201) return await holdHere('mid-create', [], [name]);
    return response;
  } finally {
    report({ type: 'batch-end', id: context.awsRequestId });
  }
};

let scan = 0;
let scanning = false;
let armed: ArmMode | undefined;
/** A run materialized for an occurrence this far in the past can only come from a misfire catch-up. */
const CATCH_UP_PAST_MS = 30_000;
let frozen = false;
/** Runs whose put succeeded in this scan: the send to hold must carry one of them. */
const createdInScan = new Set<string>();
/** Runs this scan has asked to put, including puts still in flight: what the kill may leave behind. */
const putInScan = new Set<string>();
/**
 * Runs this scan has sent, or is sending: a catch-up hold may come after sends of the same scan's
 * ordinary runs, and a send already in flight when the hold freezes the process may still reach
 * the queue (its runs are then called on time, not swept), so it counts as sent.
 */
const sentInScan = new Set<string>();
process.on('message', (message: CoordinatorMessage) => {
  if (message.type === 'arm') armed = message.mode;
  if (message.type === 'disarm') armed = undefined;
  if (message.type === 'hold') holdNext = message.mode;
  if (message.type === 'hold-off') holdNext = undefined;
  if (message.type === 'poison') poisonJobIds.add(message.jobId);
});

const runIdOfItem = (item: Record<string, { S?: string } | string> | undefined) => {
  const runId = item?.runId;
  return runId === undefined ? undefined : typeof runId === 'string' ? runId : runId.S;
};

/**
 * Watches the scanner's own AWS calls: the run puts of the current scan and, once armed, the
 * first dispatch send carrying a run this scan created. That send is held, and from then on
 * every AWS call of this process hangs, so nothing more happens before the SIGKILL and the
 * reported puts are exactly what the dead scan left behind.
 */
function watchScannerCalls(): void {
  registerClientMiddleware((service, stack) => {
    stack.add(
      (next, context) => async (args) => {
        if (frozen) return new Promise(() => undefined);
        const input = args.input as {
          Item?: Record<string, { S?: string } | string>;
          Entries?: Array<{ MessageBody?: string }>;
        };
        const isSend = service === 'SQS' && context.commandName === 'SendMessageBatchCommand';
        const sent = (input.Entries ?? []).map((entry) => JSON.parse(entry.MessageBody ?? '{}'));
        const runIds = sent.map((body) => String(body.runId));
        if (isSend && armed && scanning) {
          const mode = armed;
          const startedAt = Date.now();
          const created = sent.filter((body) => createdInScan.has(String(body.runId)));
          const fits = mode === 'mid-scan' || created.some((body) => body.scheduledFor < startedAt - CATCH_UP_PAST_MS);
          if (created.length > 0 && fits) {
            armed = undefined;
            frozen = true;
            report({
              type: 'holding',
              mode,
              scan,
              heldRunIds: runIds,
              createdRunIds: [...putInScan],
              confirmedRunIds: [...createdInScan].filter((runId) => !sentInScan.has(runId)),
            });
            return new Promise(() => undefined); // until the SIGKILL
          }
        }
        if (isSend) {
          if (scanning) for (const runId of runIds) sentInScan.add(runId);
          try {
            return await next(args);
          } catch (error) {
            report({ type: 'unsent', runIds });
            throw error;
          }
        }
        const runId =
          service === 'DynamoDB' && context.commandName === 'PutItemCommand' ? runIdOfItem(input.Item) : undefined;
        if (runId && scanning) putInScan.add(runId);
        const result = await next(args);
        if (runId && scanning) createdInScan.add(runId);
        return result;
      },
      { step: 'build', name: 'chaosScannerWatch' },
    );
  });
}

const scanner: ScannerHandler = async (event, context) => {
  const handler = await loadScanner();
  scan++;
  scanning = true;
  createdInScan.clear();
  putInScan.clear();
  sentInScan.clear();
  report({ type: 'scan-start', scan });
  try {
    return await handler(event, context);
  } finally {
    scanning = false;
    report({ type: 'scan-end', scan });
  }
};

const { role } = settings;
if (role === 'scanner') watchScannerCalls();
else if (role !== 'executor') watchCalls();
const log = (message: string, error?: unknown) => console.error(`[${role} ${process.pid}] ${message}`, error ?? '');
const handlers = {
  executor: { executor },
  scanner: { scanner },
  completion: { completion },
  'dead-letter': { deadLetter },
  api: apiHandlers(),
}[role];
// A worker restarted during the SQS outage cannot provision its queues yet: it keeps trying, as a
// Lambda whose cold start failed is invoked again.
const chronos = (async () => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startLocalChronos({
        ...settings.shared,
        components: {
          api: role === 'api',
          completion: role === 'completion',
          deadLetters: role === 'dead-letter',
          notifier: false,
          executor: role === 'executor',
          scanner: role === 'scanner',
        },
        ...(settings.apiPort === undefined ? {} : { port: settings.apiPort }),
        sqsConcurrency: settings.sqsConcurrency,
        scannerIntervalMs: settings.scannerIntervalMs,
        completionCheckpoints: {
          get: (shardId) => settings.streamCheckpoints?.[shardId],
          set: (shardId, sequenceNumber) => report({ type: 'checkpoint', shardId, sequenceNumber }),
        },
        handlers,
        log,
      });
    } catch (error) {
      if (attempt >= 100) throw error;
      log(`start failed (attempt ${attempt}); trying again`, error);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
})();
await chronos;
// Load the real module now, so that the first batch or scan does not pay for it. Module-level
// Powertools state needs an invocation scope once the pollers' SDK calls have installed a store.
const preload = {
  executor: loadExecutor,
  scanner: loadScanner,
  completion: loadCompletion,
  'dead-letter': loadDeadLetter,
  api: preloadApi,
}[role];
await runInInvocationScope('chaos-preload', () => preload());
report({ type: 'ready' });
