/**
 * The chaos run (issue 4). The coordinator (this process) starts the emulators once, provisions,
 * and runs the API, the completion stream poller and the dead-letter consumer of local Chronos,
 * plus the misbehaving target. Three executor processes and three scanner processes run the
 * rest against the same emulators. While the workload runs, an executor is SIGKILLed every few
 * seconds and restarted, and one scanner is SIGKILLed once mid-scan. When everything has settled
 * (or the deadline passed) the tables and the target's log are checked (checks.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { startLocalChronos } from '#local/chronos-local';
import { startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { createJobsDirectly } from '../bench/direct-create.ts';
import { type ChaosConfig, chaosConfig } from './chaos-config.ts';
import { startChaosTarget } from './chaos-target.ts';
import { type CheckResult, checkOccurrencesTerminal, formatChecks, runChecks } from './checks.ts';
import { type Evidence, readTables } from './evidence.ts';
import { Fleet } from './fleet.ts';
import { seededRandom } from './seeded-random.ts';
import { sharedOptions, type WorkerSettings } from './shared-options.ts';
import { bundleWorker } from './worker-bundle.ts';
import { type CreatedJob, type JobPlan, jobBody, planWorkload } from './workload.ts';

export interface ChaosOutcome {
  ok: boolean;
  results: CheckResult[];
  /** The printed table. */
  report: string;
  durationMs: number;
  /** Worker and coordinator logs of this run, and evidence.json: everything the checks read. */
  logDir: string;
}

const FEED_PARALLELISM = 8;
/** Jobs planned within one slice are created together. */
const FEED_SLICE_MS = 250;
const SETTLE_POLL_MS = 4_000;
/** Longer than a lease (timeout + margin) and a visibility timeout together: a stuck run would have moved. */
const QUIET_MS = 16_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Runs the whole scenario and returns the verdict; never throws for a failed check, only for a broken setup. */
export async function runChaos(
  config: ChaosConfig = chaosConfig(),
  progress: (line: string) => void = (line) => process.stderr.write(`[chaos] ${line}\n`),
): Promise<ChaosOutcome> {
  const began = Date.now();
  const since = () => `${((Date.now() - began) / 1000).toFixed(1)} s`;
  const logDir = mkdtempSync(join(tmpdir(), 'chronos-chaos-'));
  const stops: Array<() => Promise<unknown> | unknown> = [];
  try {
    const [dynamodb, sqs] = await Promise.all([startDynamoDbLocal(), startFauxqsProcess()]);
    stops.push(
      () => dynamodb.stop(),
      () => sqs.stop(),
    );
    const target = await startChaosTarget({ seed: config.seed, faults: config.faults, hangMs: config.hangMs });
    stops.push(() => target.close());
    const endpoints = { dynamodb: dynamodb.endpoint, sqs: sqs.endpoint };
    const shared = sharedOptions(config, endpoints);
    const chronos = await startLocalChronos({
      ...shared,
      components: { api: true, completion: true, deadLetters: true, executor: false, scanner: false },
      log: (message, error) => appendFileSync(join(logDir, 'coordinator.log'), `${message} ${error ?? ''}\n`),
    });
    stops.push(() => chronos.stop());
    const documents = DynamoDBDocument.from(
      new DynamoDBClient({ endpoint: endpoints.dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
    );
    stops.push(() => documents.destroy());
    const sqsClient = new SQSClient({ endpoint: endpoints.sqs, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    stops.push(() => sqsClient.destroy());

    const workerScript = await bundleWorker();
    stops.push(() => rmSync(workerScript, { force: true }));
    const fleet = new Fleet(
      workerScript,
      join(logDir, 'workers.log'),
      (role, slot): WorkerSettings => ({
        role,
        shared,
        sqsConcurrency: config.executorConcurrency,
        scannerIntervalMs: config.scannerIntervalsMs[slot] ?? 2_000,
      }),
    );
    stops.push(() => fleet.stop());
    const executorSlots = Array.from({ length: config.executors }, (_, slot) => slot);
    const scannerSlots = config.scannerIntervalsMs.map((_, slot) => slot);
    await Promise.all([
      ...executorSlots.map((slot) => fleet.start('executor', slot).ready),
      ...scannerSlots.map((slot) => fleet.start('scanner', slot).ready),
    ]);
    progress(
      `${since()}: emulators, coordinator, ${config.executors} executors and ${scannerSlots.length} scanners ready`,
    );

    let scannerHold: Evidence['scannerHold'];
    fleet.onMessage((worker, message) => {
      if (message.type !== 'holding') return;
      const { scan, createdRunIds, heldRunIds } = message;
      scannerHold = { scan, createdRunIds, heldRunIds };
      void fleet.kill('scanner', worker.slot, 'mid-scan').then((kill) => {
        progress(
          `${since()}: SIGKILLed scanner ${worker.slot} in scan ${scan}, which had created ${createdRunIds.length} runs and was sending ${heldRunIds.length}`,
        );
        fleet.start('scanner', worker.slot);
        return kill;
      });
    });

    const start = Date.now();
    const armTimer = setTimeout(
      () => fleet.workers.get('scanner#0')?.process.send({ type: 'arm' }),
      config.scannerKillArmAtMs,
    );
    const killing = killExecutors(fleet, config, start, executorSlots, (line) => progress(`${since()}: ${line}`));
    const plans = await feedWorkload(config, chronos.tenantId, target.url('/chaos'), start, (line) =>
      progress(`${since()}: ${line}`),
    );
    const lastDue = Math.max(...plans.flatMap((plan) => plan.occurrences));
    await sleep(lastDue - Date.now());
    const settled = await settle(config, start, async () => {
      const { jobs, runs } = await readTables(documents, chronos.tables);
      const verdict = checkOccurrencesTerminal({ ...emptyEvidence(config), plans, jobs, runs });
      const depth = await queueDepths(sqsClient, chronos.queues);
      const running = runs.filter((run) => run.status === 'RUNNING').length;
      progress(`${since()}: ${verdict.numbers}; ${running} running; ${depth.text}`);
      return {
        done: verdict.ok,
        // Anything that moves: calls, finished runs, messages anywhere in the queues, runs under a lease.
        activity: `${target.calls.length}/${verdict.numbers}/${depth.total}/${running}`,
        busy: depth.total > 0 || running > 0,
      };
    });
    progress(`${since()}: ${settled}`);
    clearTimeout(armTimer);
    await killing;
    await fleet.stop();
    const { jobs, runs } = await readTables(documents, chronos.tables);
    const evidence: Evidence = {
      ...emptyEvidence(config),
      plans,
      jobs,
      runs,
      calls: [...target.calls],
      kills: [...fleet.kills],
      scannerHold,
    };
    writeFileSync(join(logDir, 'evidence.json'), JSON.stringify(evidence));
    const results = runChecks(evidence);
    const durationMs = Date.now() - began;
    const report = `${formatChecks(results)}\n\nchaos run: ${(durationMs / 1000).toFixed(0)} s, seed ${config.seed}, ${settled}; logs in ${logDir}`;
    return { ok: results.every((r) => r.ok), results, report, durationMs, logDir };
  } finally {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
  }
}

/** Messages waiting, in flight and delayed on the dispatch queue and its DLQ, for progress lines. */
async function queueDepths(sqs: SQSClient, queues: { dispatch: { url: string }; deadLetter: { url: string } }) {
  const depth = async (url: string) => {
    const { Attributes: a = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    const counts = [
      a.ApproximateNumberOfMessages,
      a.ApproximateNumberOfMessagesNotVisible,
      a.ApproximateNumberOfMessagesDelayed,
    ].map(Number);
    return { text: counts.join('/'), total: counts.reduce((sum, n) => sum + n, 0) };
  };
  const [dispatch, deadLetter] = [await depth(queues.dispatch.url), await depth(queues.deadLetter.url)];
  return {
    text: `dispatch queue visible/in flight/delayed ${dispatch.text}, DLQ ${deadLetter.text}`,
    total: dispatch.total + deadLetter.total,
  };
}

function emptyEvidence(config: ChaosConfig): Evidence {
  return {
    plans: [],
    retry: config.retry,
    jobs: [],
    runs: [],
    calls: [],
    kills: [],
    dispatchSlackMs: config.dispatchSlackMs,
    visibilityTimeoutMs: config.visibilityTimeoutSeconds * 1000,
  };
}

/** SIGKILLs a random ready executor every killEveryMs until killUntilMs, restarting it at once. */
async function killExecutors(
  fleet: Fleet,
  config: ChaosConfig,
  start: number,
  slots: number[],
  progress: (line: string) => void,
): Promise<void> {
  const random = seededRandom(config.seed + 1);
  const [min, max] = config.killEveryMs;
  for (;;) {
    await sleep(min + random() * (max - min));
    if (Date.now() - start > config.killUntilMs) return;
    const ready = slots.filter((slot) => fleet.workers.get(`executor#${slot}`)?.isReady);
    const slot = ready[Math.floor(random() * ready.length)];
    if (slot === undefined) continue;
    const kill = await fleet.kill('executor', slot, 'random');
    progress(`SIGKILLed executor ${slot} (pid ${kill.pid}) holding ${kill.heldRunIds.length} runs`);
    fleet.start('executor', slot);
  }
}

/**
 * Creates every planned job at its planned time through the create-job use case, in this process
 * with the API handler's own dependencies (test/bench/direct-create.ts): on this machine the local
 * API tops out near 20 creations a second, too few for 1,000 jobs in 20 s beside the executions,
 * and job creation is not what this run is about. Returns the plans with their occurrences.
 */
async function feedWorkload(
  config: ChaosConfig,
  tenantId: string,
  targetUrl: string,
  start: number,
  progress: (line: string) => void,
): Promise<CreatedJob[]> {
  const plans = planWorkload(config);
  const created: CreatedJob[] = [];
  const slices = new Map<number, JobPlan[]>();
  for (const plan of plans) {
    const slice = Math.floor(plan.createAtMs / FEED_SLICE_MS);
    slices.set(slice, [...(slices.get(slice) ?? []), plan]);
  }
  let reported = 0;
  for (const [slice, group] of [...slices].sort(([a], [b]) => a - b)) {
    await sleep(start + slice * FEED_SLICE_MS - Date.now());
    const jobs = group.map((plan): CreatedJob => ({ ...plan, occurrences: [] }));
    try {
      const jobIds = await createJobsDirectly(tenantId, jobs.length, FEED_PARALLELISM, (i) => {
        const job = jobs[i] as CreatedJob;
        const { body, occurrences } = jobBody(job, config, targetUrl, Date.now());
        job.occurrences = occurrences;
        return body;
      });
      jobIds.forEach((jobId, i) => {
        (jobs[i] as CreatedJob).jobId = jobId;
      });
    } catch (error) {
      for (const job of jobs) job.createError ??= String(error);
    }
    created.push(...jobs);
    if (created.length - reported >= 250) {
      reported = created.length;
      progress(`${created.length}/${plans.length} jobs created`);
    }
  }
  const failed = created.filter((job) => job.createError);
  progress(
    `${created.length - failed.length}/${plans.length} jobs created${failed[0] ? `; first failure: ${failed[0].createError}` : ''}`,
  );
  return created;
}

/**
 * Polls until every occurrence is terminal; gives up earlier when nothing has moved for QUIET_MS
 * with the queues empty and no run under a lease (what is unfinished then stays so: the checks
 * report it), and at the deadline at the latest. Returns why it stopped.
 */
async function settle(
  config: ChaosConfig,
  start: number,
  poll: () => Promise<{ done: boolean; activity: string; busy: boolean }>,
): Promise<string> {
  let lastActivity = '';
  let quietSince = Date.now();
  while (Date.now() - start < config.settleDeadlineMs) {
    const { done, activity, busy } = await poll();
    if (done) return 'settled: every occurrence is terminal';
    if (activity !== lastActivity || busy) {
      lastActivity = activity;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= QUIET_MS) {
      return `stopped waiting: nothing moved for ${QUIET_MS / 1000} s, queues empty, no run under a lease`;
    }
    await sleep(SETTLE_POLL_MS);
  }
  return `stopped waiting: deadline of ${config.settleDeadlineMs / 1000} s after the start passed`;
}

/** Forks test/chaos/fauxqs-process.ts and resolves with its endpoint. */
async function startFauxqsProcess(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./fauxqs-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`fauxqs exited with ${code}`)));
    child.once('message', (message: { endpoint: string }) => resolve(message.endpoint));
  });
  return {
    endpoint,
    stop: async () => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('close', () => resolve());
        child.kill('SIGKILL');
      });
    },
  };
}
