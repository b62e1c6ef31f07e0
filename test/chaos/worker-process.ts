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
 */
import type { SQSEvent } from 'aws-lambda';
import { registerClientMiddleware } from '#adapters/aws-clients';
import { startLocalChronos } from '#local/chronos-local';
import { runInInvocationScope } from '#local/invoke-store';
import type { ScannerHandler } from '#local/scanner-timer';
import type { SqsHandler } from '#local/sqs-poller';
import type { ArmMode, CoordinatorMessage, WorkerMessage, WorkerSettings } from './shared-options.ts';

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

const executor: SqsHandler = async (event, context) => {
  const handler = await loadExecutor();
  report({ type: 'batch-start', id: context.awsRequestId, runIds: runIdsOf(event) });
  try {
    return await handler(event, context);
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
/** Runs this scan has sent: a catch-up hold may come after sends of the same scan's ordinary runs. */
const sentInScan = new Set<string>();
process.on('message', (message: CoordinatorMessage) => {
  if (message.type === 'arm') armed = message.mode;
  if (message.type === 'disarm') armed = undefined;
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
          try {
            const result = await next(args);
            if (scanning) for (const runId of runIds) sentInScan.add(runId);
            return result;
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

if (settings.role === 'scanner') watchScannerCalls();
const isExecutor = settings.role === 'executor';
const log = (message: string, error?: unknown) =>
  console.error(`[${settings.role} ${process.pid}] ${message}`, error ?? '');
// A worker restarted during the SQS outage cannot provision its queues yet: it keeps trying, as a
// Lambda whose cold start failed is invoked again.
for (let attempt = 1; ; attempt++) {
  try {
    await startLocalChronos({
      ...settings.shared,
      components: {
        api: false,
        completion: false,
        deadLetters: false,
        notifier: false,
        executor: isExecutor,
        scanner: !isExecutor,
      },
      sqsConcurrency: settings.sqsConcurrency,
      scannerIntervalMs: settings.scannerIntervalMs,
      handlers: isExecutor ? { executor } : { scanner },
      log,
    });
    break;
  } catch (error) {
    if (attempt >= 100) throw error;
    log(`start failed (attempt ${attempt}); trying again`, error);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
// Load the real module now, so that the first batch or scan does not pay for it. Module-level
// Powertools state needs an invocation scope once the pollers' SDK calls have installed a store.
await runInInvocationScope('chaos-preload', () => (isExecutor ? loadExecutor() : loadScanner()));
report({ type: 'ready' });
