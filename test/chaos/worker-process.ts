/**
 * One chaos worker process: `tsx test/chaos/worker-process.ts '<WorkerSettings JSON>'`, forked by
 * the coordinator with an IPC channel. It runs one part of local Chronos against the shared
 * emulators, with the real handler modules, and reports to the coordinator:
 *  - executor: only the dispatch-queue poller; the start and end of every batch with its run ids,
 *    so the coordinator knows which runs a killed process held;
 *  - scanner: only the scanner schedule; the start and end of every scan. Once armed, it holds
 *    the first dispatch send of runs it created in the current scan (after the run puts, before
 *    the messages go out and before the jobs advance) and reports it, so that the SIGKILL that
 *    follows lands mid-scan at the protocol's most fragile point.
 */
import type { SQSEvent } from 'aws-lambda';
import { registerClientMiddleware } from '#adapters/aws-clients';
import { startLocalChronos } from '#local/chronos-local';
import { runInInvocationScope } from '#local/invoke-store';
import type { ScannerHandler } from '#local/scanner-timer';
import type { SqsHandler } from '#local/sqs-poller';
import type { CoordinatorMessage, WorkerMessage, WorkerSettings } from './shared-options.ts';

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
let armed = false;
let frozen = false;
/** Runs whose put succeeded in this scan: the send to hold must carry one of them. */
const createdInScan = new Set<string>();
/** Runs this scan has asked to put, including puts still in flight: what the kill may leave behind. */
const putInScan = new Set<string>();
process.on('message', (message: CoordinatorMessage) => {
  if (message.type === 'arm') armed = true;
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
        if (service === 'SQS' && context.commandName === 'SendMessageBatchCommand' && armed && scanning) {
          const runIds = (input.Entries ?? []).map((entry) => String(JSON.parse(entry.MessageBody ?? '{}').runId));
          if (runIds.some((runId) => createdInScan.has(runId))) {
            armed = false;
            frozen = true;
            report({ type: 'holding', scan, heldRunIds: runIds, createdRunIds: [...putInScan] });
            return new Promise(() => undefined); // until the SIGKILL
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
await startLocalChronos({
  ...settings.shared,
  components: { api: false, completion: false, deadLetters: false, executor: isExecutor, scanner: !isExecutor },
  sqsConcurrency: settings.sqsConcurrency,
  scannerIntervalMs: settings.scannerIntervalMs,
  handlers: isExecutor ? { executor } : { scanner },
  log: (message, error) => console.error(`[${settings.role} ${process.pid}] ${message}`, error ?? ''),
});
// Load the real module now, so that the first batch or scan does not pay for it. Module-level
// Powertools state needs an invocation scope once the pollers' SDK calls have installed a store.
await runInInvocationScope('chaos-preload', () => (isExecutor ? loadExecutor() : loadScanner()));
report({ type: 'ready' });
