/**
 * The chaos run (issue 4). The coordinator (this process) starts the emulators once, provisions,
 * and runs the misbehaving target and the workload. Worker processes run local Chronos against
 * the same emulators: three executors, three scanners, the completion handler (the runs stream's
 * mapping), the dead-letter consumer and the API. While the workload runs, an executor is
 * SIGKILLed every few seconds and restarted, one scanner is SIGKILLed once mid-scan, the SQS
 * emulator is stopped for a few seconds and started again with its state, the scanner that
 * catches up jobs found long behind (misfire fire_all) is SIGKILLed between its run puts and its
 * send, the completion handler is SIGKILLed mid-batch, the API mid-create and the dead-letter
 * consumer holding the poison message, which is then re-driven. When everything has settled (or
 * the deadline passed) the tables and the target's log are checked (checks.ts, checks-kills.ts).
 */

import { type ChildProcess, fork } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { registerClientMiddleware } from '#adapters/aws-clients';
import { startLocalChronos } from '#local/chronos-local';
import { startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { freePort } from '#local/emulators/free-port';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { createJobsDirectly } from '../bench/direct-create.ts';
import { type ChaosConfig, chaosConfig } from './chaos-config.ts';
import { startChaosTarget } from './chaos-target.ts';
import { type CheckResult, checkOccurrencesTerminal, formatChecks, runChecks } from './checks.ts';
import { checkWorkflowRunsEnded, withWorkflowTasks } from './checks-workflows.ts';
import { type ApiCreate, designOf, type Evidence, type PoisonCase, readTables, type ScannerHold } from './evidence.ts';
import { ExecutorKills } from './executor-kills.ts';
import { Fleet } from './fleet.ts';
import {
  type CoordinatorMessage,
  type HoldMode,
  sharedOptions,
  type WorkerRole,
  type WorkerSettings,
} from './shared-options.ts';
import { bundleWorker } from './worker-bundle.ts';
import { type CreatedJob, catchUpOccurrences, type JobPlan, jobBody, planWorkload } from './workload.ts';
import { type ApiClient, createThroughApi, poisonPlan, redrivePoison } from './workload-api.ts';
import { feedWorkflows, planWorkflows } from './workload-workflows.ts';

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
    const sqsState = join(logDir, 'fauxqs');
    const [dynamodb, firstSqs] = await Promise.all([startDynamoDbLocal(), startFauxqsProcess(0, sqsState)]);
    let sqs = firstSqs;
    stops.push(
      () => dynamodb.stop(),
      () => sqs.stop(),
    );
    // Every dispatch send of this process that fails (the jobs created here, in bulk).
    const unsentRunIds: string[] = [];
    stops.push(watchFailedSends((runIds) => unsentRunIds.push(...runIds)));
    const target = await startChaosTarget({ seed: config.seed, faults: config.faults, hangMs: config.hangMs });
    stops.push(() => target.close());
    const endpoints = { dynamodb: dynamodb.endpoint, sqs: sqs.endpoint };
    const shared = sharedOptions(config, endpoints);
    // Here only for the tables, the queues, the tenant and the environment of the bulk creates.
    const chronos = await startLocalChronos({
      ...shared,
      components: { api: false, completion: false, deadLetters: false, executor: false, scanner: false },
      log: (message, error) => appendFileSync(join(logDir, 'coordinator.log'), `${message} ${error ?? ''}\n`),
    });
    stops.push(() => chronos.stop());
    const documents = DynamoDBDocument.from(
      new DynamoDBClient({ endpoint: endpoints.dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
    );
    stops.push(() => documents.destroy());
    const sqsClient = new SQSClient({ endpoint: endpoints.sqs, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    stops.push(() => sqsClient.destroy());

    const apiPort = await freePort();
    const api: ApiClient = { url: `http://127.0.0.1:${apiPort}`, token: chronos.token };
    /** The completion mapping's checkpoint per shard: a restarted completion process goes on from it. */
    const streamCheckpoints: Record<string, string> = {};
    const poisonJobIds: string[] = [];
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
        apiPort,
        streamCheckpoints: { ...streamCheckpoints },
        poisonJobIds: [...poisonJobIds],
      }),
    );
    stops.push(() => fleet.stop());
    const executorSlots = Array.from({ length: config.executors }, (_, slot) => slot);
    const scannerSlots = config.scannerIntervalsMs.map((_, slot) => slot);
    await Promise.all([
      ...executorSlots.map((slot) => fleet.start('executor', slot).ready),
      ...scannerSlots.map((slot) => fleet.start('scanner', slot).ready),
      ...SINGLE_ROLES.map((role) => fleet.start(role, 0).ready),
    ]);
    progress(
      `${since()}: emulators, coordinator, ${config.executors} executors, ${scannerSlots.length} scanners, completion, dead-letter consumer and API ready`,
    );

    const tell = (slot: number, message: CoordinatorMessage) => tellWorker(fleet, 'scanner', slot, message);
    let scannerHold: Evidence['scannerHold'];
    const catchUpHolds: ScannerHold[] = [];
    let poisonRefusals = 0;
    const writtenUnanswered: string[] = [];
    const stepHolds: NonNullable<Evidence['stepHolds']> = [];
    const triggerHolds: NonNullable<Evidence['triggerHolds']> = [];
    fleet.onMessage((worker, message) => {
      if (message.type === 'held' && message.mode === 'mid-step' && message.taskRunId)
        stepHolds.push({ taskRunId: message.taskRunId, batchRunIds: message.runIds });
      if (message.type === 'held' && message.mode === 'mid-trigger' && message.taskRunId)
        triggerHolds.push({ taskRunId: message.taskRunId, sentRunIds: message.runIds });
      if (message.type === 'unsent') unsentRunIds.push(...message.runIds);
      if (message.type === 'checkpoint') streamCheckpoints[message.shardId] = message.sequenceNumber;
      if (message.type === 'poison-refused') poisonRefusals++;
      if (message.type === 'held' && message.mode === 'mid-create') writtenUnanswered.push(...message.jobNames);
      if (message.type === 'held') {
        void fleet.kill(worker.role, worker.slot, message.mode).then((kill) => {
          const held =
            message.mode === 'mid-create'
              ? `the create of ${message.jobNames.join(', ')}`
              : `${kill.heldRunIds.length} runs (${message.writesDone} writes done)`;
          progress(`${since()}: SIGKILLed ${worker.role} (pid ${kill.pid}) holding ${held}`);
          // Down a while after a killed trigger: its first tasks run and end before it answers again.
          const down = message.mode === 'mid-trigger' ? config.apiDownAfterTriggerKillMs : 0;
          setTimeout(() => fleet.start(worker.role, worker.slot), down);
        });
      }
      if (message.type !== 'holding') return;
      const { mode, scan, createdRunIds, confirmedRunIds, heldRunIds } = message;
      const hold = { scan, createdRunIds, confirmedRunIds, heldRunIds };
      if (mode === 'mid-scan') scannerHold = hold;
      else {
        catchUpHolds.push(hold);
        // One catch-up pass killed is the fault; the others carry on (one racing it may hold too: it dies as well).
        for (const slot of scannerSlots) if (slot !== worker.slot) tell(slot, { type: 'disarm' });
      }
      void fleet.kill('scanner', worker.slot, mode).then((kill) => {
        progress(
          `${since()}: SIGKILLed scanner ${worker.slot} in ${mode === 'catch-up' ? 'a catch-up' : ''} scan ${scan}, which had created ${createdRunIds.length} runs and was sending ${heldRunIds.length}`,
        );
        fleet.start('scanner', worker.slot);
        return kill;
      });
    });

    const start = Date.now();
    const armTimer = setTimeout(() => tell(0, { type: 'arm', mode: 'mid-scan' }), config.scannerKillArmAtMs);
    let sqsOutage: Evidence['sqsOutage'];
    const outage = (async () => {
      await sleep(start + config.sqsOutageAtMs - Date.now());
      const stoppedAt = Date.now();
      await sqs.stop('SIGTERM');
      progress(`${since()}: stopped the SQS emulator`);
      await sleep(config.sqsOutageMs);
      sqs = await startFauxqsProcess(sqs.port, sqsState);
      sqsOutage = { stoppedAt, restartedAt: Date.now() };
      progress(`${since()}: started the SQS emulator again on port ${sqs.port}, with its state`);
    })();
    const executorKills = new ExecutorKills(fleet, executorSlots, (line) => progress(`${since()}: ${line}`));
    const killing = executorKills.random(config, start);
    // Job ids of the at-most-once jobs created so far (in the coordinator): the aimed kill's prey.
    const atMostOnceJobIds = new Set<string>();
    const aiming = executorKills.aimAtMostOnce(
      target,
      (jobId) => atMostOnceJobIds.has(jobId),
      start,
      config.killUntilMs,
    );
    // Each hold is asked for until its kill has happened (on a loaded machine a process restarted
    // during the SQS outage may take long to have work again), or until the run has settled.
    const holdsEnd = { settled: false };
    const holdsInTurn = async (role: WorkerRole, holds: Array<{ at: number; mode: HoldMode }>) => {
      for (const { at, mode } of holds) await holdThenKill(fleet, role, mode, start + at, holdsEnd);
    };
    const at = (mode: HoldMode, times: number[]) => times.map((time) => ({ at: time, mode }));
    // One sequence per process: a hold is asked for until its own kill happened, then the next.
    const completionHolds = [
      ...at('mid-batch', config.completionKillsAtMs),
      ...at('mid-step', [config.completionWorkflowKillAtMs]),
    ].sort((a, b) => a.at - b.at);
    const holding = Promise.all([
      holdsInTurn(
        'api',
        [...at('mid-create', config.apiKillsAtMs), ...at('mid-trigger', [config.apiTriggerKillAtMs])].sort(
          (a, b) => a.at - b.at,
        ),
      ),
      holdsInTurn('completion', completionHolds),
      // The poison message is the only dead letter: the consumer holds it.
      holdsInTurn('dead-letter', at('dead-letter', [0])),
    ]);
    const apiCreates: ApiCreate[] = [];
    // Created here, not through the API: its id must reach the executors before its run is due,
    // whatever the API kills do to creates meanwhile. The API re-drives it.
    const poisonJob = poisonPlan(config.poisonDueAfterMs);
    const [poisonJobId] = await createJobsDirectly(chronos.tenantId, 1, 1, () => {
      const { body, occurrences } = jobBody(poisonJob, config, target.url('/chaos'), Date.now());
      poisonJob.occurrences = occurrences;
      return body;
    });
    poisonJob.jobId = poisonJobId as string;
    poisonJobIds.push(poisonJob.jobId);
    for (const slot of executorSlots) tellWorker(fleet, 'executor', slot, { type: 'poison', jobId: poisonJob.jobId });
    const poison: PoisonCase = {
      jobId: poisonJob.jobId,
      runId: `${poisonJob.jobId}_${poisonJob.occurrences[0]}_1`,
      refusals: 0,
      redriveAnswers: [],
    };
    const redriving = redrivePoison(api, poison, start + config.settleDeadlineMs - 30_000);
    // Created through the API now, triggered through it during the chaos window (workload-workflows.ts).
    const workflows = planWorkflows(config);
    const workflowFeeding = feedWorkflows(api, workflows, config, (path) => target.url(path), start);
    const plans = await feedWorkload(
      config,
      chronos.tenantId,
      api,
      apiCreates,
      target.url('/chaos'),
      start,
      (line) => progress(`${since()}: ${line}`),
      (job) => {
        if (job.jobId && job.delivery === 'at-most-once') atMostOnceJobIds.add(job.jobId);
      },
    );
    await outage;
    // Every scanner may be the one to catch up; scanner 0 only once its mid-scan kill is done.
    for (const slot of scannerSlots.filter((slot) => slot !== 0 || scannerHold))
      tell(slot, { type: 'arm', mode: 'catch-up' });
    const caughtUp = await fallBehind(documents, chronos.tables.jobs, chronos.tenantId, plans, config);
    progress(`${since()}: ${caughtUp} catch-up jobs fell ${config.catchUpMissedMs / 1000} s behind`);
    const lastDue = Math.max(...plans.flatMap((plan) => plan.occurrences));
    await sleep(lastDue - Date.now());
    await workflowFeeding;
    const settled = await settle(config, start, async () => {
      const { jobs, runs, workflowRuns } = await readTables(documents, chronos.tables);
      // The kills and trigger holds so far too: the workflow check asks that the API was killed in a
      // trigger, and without them it never passed here, so the run always sat out QUIET_MS.
      const sofar = {
        ...emptyEvidence(config),
        plans: [...plans, poisonJob],
        jobs,
        runs,
        workflows,
        workflowRuns,
        kills: [...fleet.kills],
        triggerHolds,
      };
      const verdict = checkOccurrencesTerminal(withWorkflowTasks(sofar));
      const workflowsEnded = checkWorkflowRunsEnded(sofar);
      const depth = await queueDepths(sqsClient, chronos.queues);
      const running = runs.filter((run) => run.status === 'RUNNING').length;
      const poisonRuns = runs.filter((run) => run.jobId === poison.jobId).map((run) => `${run.attempt}:${run.status}`);
      progress(
        `${since()}: ${verdict.numbers}; ${workflowsEnded.numbers}; ${running} running; ${depth.text}; poison ${poisonRuns.join(' ') || '-'}`,
      );
      return {
        // The poison occurrence is terminal once dead-lettered: done only when its re-drive has ended
        // too, and only with no message left and no run under a lease (nothing left to call twice).
        done:
          verdict.ok &&
          workflowsEnded.ok &&
          poisonRuns.some((run) => run.startsWith('2:')) &&
          depth.total === 0 &&
          running === 0,
        // Anything that moves: calls, finished runs, messages anywhere in the queues, runs under a lease.
        activity: `${target.calls.length}/${verdict.numbers}/${depth.total}/${running}`,
        busy: depth.total > 0 || running > 0,
      };
    });
    progress(`${since()}: ${settled}`);
    clearTimeout(armTimer);
    await killing;
    await aiming;
    holdsEnd.settled = true;
    await holding;
    await redriving;
    poison.refusals = poisonRefusals;
    await fleet.stop();
    const { jobs, runs, workflowRuns } = await readTables(documents, chronos.tables);
    const evidence: Evidence = {
      ...emptyEvidence(config),
      plans,
      jobs,
      runs,
      calls: [...target.calls],
      kills: [...fleet.kills],
      scannerHold,
      catchUpHolds,
      ...(sqsOutage ? { sqsOutage } : {}),
      unsentRunIds: [...new Set(unsentRunIds)],
      apiCreates,
      writtenUnanswered,
      poison,
      workflows,
      workflowRuns,
      stepHolds,
      triggerHolds,
      minKills: { completion: completionHolds.length, 'dead-letter': 1, api: config.apiKillsAtMs.length },
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
    design: designOf(config),
    visibilityTimeoutMs: config.visibilityTimeoutSeconds * 1000,
  };
}

/** The roles with a single process, each killed while holding its work. */
const SINGLE_ROLES: WorkerRole[] = ['completion', 'dead-letter', 'api'];

/**
 * Tells a worker something, unless it is gone (killed, or dead before it was ready). A worker may
 * also die while the message is being written (the chaos kills them at any moment): the failed
 * write (EPIPE) then goes to the callback, not to an unhandled 'error' event of the child.
 */
function tellWorker(fleet: Fleet, role: WorkerRole, slot: number, message: CoordinatorMessage): void {
  const child = fleet.workers.get(`${role}#${slot}`)?.process;
  if (child?.connected) child.send(message, () => undefined);
}

/**
 * From `at`, tells the process of `role` to hold its next piece of work (it reports it, and the
 * coordinator SIGKILLs it: see `held` in runChaos), telling again a process started meanwhile,
 * until the kill has happened or the run has settled.
 */
async function holdThenKill(
  fleet: Fleet,
  role: WorkerRole,
  mode: HoldMode,
  at: number,
  end: { settled: boolean },
): Promise<void> {
  await sleep(at - Date.now());
  const killsBefore = fleet.kills.filter((kill) => kill.role === role).length;
  while (!end.settled && fleet.kills.filter((kill) => kill.role === role).length === killsBefore) {
    tellWorker(fleet, role, 0, { type: 'hold', mode });
    await sleep(1_000);
  }
  if (fleet.kills.filter((kill) => kill.role === role).length === killsBefore)
    tellWorker(fleet, role, 0, { type: 'hold-off' });
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
  api: ApiClient,
  apiCreates: ApiCreate[],
  targetUrl: string,
  start: number,
  progress: (line: string) => void,
  /** Each job created in this process, once it has its id. */
  onCreated: (job: CreatedJob) => void,
): Promise<CreatedJob[]> {
  const plans = planWorkload(config);
  const created: CreatedJob[] = [];
  const slices = new Map<number, JobPlan[]>();
  for (const plan of plans) {
    const slice = Math.floor(plan.createAtMs / FEED_SLICE_MS);
    slices.set(slice, [...(slices.get(slice) ?? []), plan]);
  }
  let reported = 0;
  const throughApi: Array<Promise<void>> = [];
  for (const [slice, all] of [...slices].sort(([a], [b]) => a - b)) {
    await sleep(start + slice * FEED_SLICE_MS - Date.now());
    for (const plan of all.filter((plan) => plan.via === 'api')) {
      const job: CreatedJob = { ...plan, occurrences: [] };
      created.push(job);
      // In the background: a create that waits for the API to come back must not hold up the others.
      throughApi.push(createThroughApi(api, job, config, targetUrl).then((record) => void apiCreates.push(record)));
    }
    const group = all.filter((plan) => plan.via !== 'api');
    if (group.length === 0) continue;
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
        onCreated(jobs[i] as CreatedJob);
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
  await Promise.all(throughApi);
  const retried = apiCreates.filter((record) => record.tries.length > 1).length;
  const failed = created.filter((job) => job.createError);
  progress(
    `${created.length - failed.length}/${plans.length} jobs created (${throughApi.length} through the API, ${retried} of them after a failed try)${failed[0] ? `; first failure: ${failed[0].createError}` : ''}`,
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

/**
 * Moves every catch-up job `catchUpMissedMs` into the past (its schedule's start and its
 * nextFireAt), as though no scanner had run since, and records the occurrences it now owes.
 * Returns how many were moved.
 */
async function fallBehind(
  documents: DynamoDBDocument,
  jobsTable: string,
  tenantId: string,
  plans: CreatedJob[],
  config: ChaosConfig,
): Promise<number> {
  const now = Date.now();
  const behind = plans.filter((plan) => plan.kind === 'catch-up' && plan.jobId);
  await Promise.all(
    behind.map(async (plan) => {
      const { startAt, endAt, occurrences } = catchUpOccurrences(plan, config, now);
      await documents.update({
        TableName: jobsTable,
        Key: { tenantId, jobId: plan.jobId },
        UpdateExpression: 'SET #schedule.#startAt = :startAt, #schedule.#endAt = :endAt, #next = :startAt',
        ConditionExpression: 'attribute_exists(#next)',
        ExpressionAttributeNames: {
          '#schedule': 'schedule',
          '#startAt': 'startAt',
          '#endAt': 'endAt',
          '#next': 'nextFireAt',
        },
        ExpressionAttributeValues: { ':startAt': startAt, ':endAt': endAt },
      });
      plan.occurrences = occurrences;
    }),
  );
  return behind.length;
}

/** Calls `onFailure` with the run ids of every SendMessageBatch of this process that fails; returns the unregister. */
function watchFailedSends(onFailure: (runIds: string[]) => void): () => void {
  return registerClientMiddleware((service, stack) => {
    if (service !== 'SQS') return;
    stack.add(
      (next, context) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          if (context.commandName === 'SendMessageBatchCommand') {
            const entries = (args.input as { Entries?: Array<{ MessageBody?: string }> }).Entries ?? [];
            onFailure(entries.map((entry) => String(JSON.parse(entry.MessageBody ?? '{}').runId)));
          }
          throw error;
        }
      },
      { step: 'build', name: 'chaosFailedSends' },
    );
  });
}

/**
 * Forks test/chaos/fauxqs-process.ts on `port` (0: any) with its state in `dataDir`, and resolves
 * with its endpoint and port. `stop('SIGTERM')` waits for a graceful stop.
 */
async function startFauxqsProcess(
  port: number,
  dataDir: string,
): Promise<{ endpoint: string; port: number; stop(signal?: NodeJS.Signals): Promise<void> }> {
  const child: ChildProcess = fork(
    fileURLToPath(new URL('./fauxqs-process.ts', import.meta.url)),
    [String(port), dataDir],
    { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const ready = await new Promise<{ endpoint: string; port: number }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`fauxqs exited with ${code}`)));
    child.once('message', (message: { endpoint: string; port: number }) => resolve(message));
  });
  return {
    ...ready,
    stop: async (signal = 'SIGKILL') => {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('close', () => resolve());
        child.kill(signal);
      });
    },
  };
}
