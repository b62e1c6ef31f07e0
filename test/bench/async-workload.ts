/**
 * The async workload of issue #20: 1,000 async one-time jobs (× --scale) due at the same second,
 * whose target takes each call with 202 and then, from its worker pool, heartbeats every 5 s for
 * 60 s and completes the run `succeeded` (async-target-process.ts); one job in ten has a worker
 * that goes silent after its first heartbeat, and the scanner's deadline pass must end its run
 * TIMED_OUT (heartbeat_timeout). Jobs have no retries, so every job has exactly one run.
 *
 * While it runs, the AWS request counter and the handlers' invocations are sampled every second;
 * afterwards the runs are read back with the bench's own client (not counted), and async-report.ts
 * turns it all into the figures: callbacks answered, ends, detection delay, cost per heartbeat.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { ROUTES } from '#handlers/api/routes';
import type { LocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import type { CreatedJobs } from './api-load.ts';
import {
  type AsyncPlan,
  type AsyncReport,
  asyncEnds,
  type CallbackRecord,
  type CounterSample,
  callbackCounts,
  type EndedRun,
  heartbeatCost,
  heartbeatWindow,
} from './async-report.ts';
import { createJobsDirectly } from './direct-create.ts';
import type { Harness, HarnessConfig } from './harness.ts';
import type { Workload } from './workloads.ts';

export const ASYNC_RUNS = 1_000;
/** One job in this many has a worker that goes silent after its first heartbeat. */
export const SILENT_EVERY = 10;
export const HEARTBEAT_EVERY_MS = 5_000;
export const WORK_MS = 60_000;
/** Three missed heartbeats: what a real worker would be given. */
export const HEARTBEAT_TIMEOUT_SECONDS = 15;
/** Enough sockets for 1,000 runs at 200 heartbeats/s up to a 640 ms round trip: the pool must not be what delays them. */
const POOL_SIZE = 128;
/** Creation's planned pace (ms per job, direct creates, generous for a loaded 2-core machine)... */
const PLANNED_CREATE_MS = 8;
/** ...and the due time's lead over its planned end: more than a scanner interval (materialized at the first pass). */
const LEAD_MS = 12_000;
/** Less lead than this once creation ended (a scanner interval and 2 s): the plan overran. */
const MIN_LEAD_MS = 7_000;

const CONFIG: HarnessConfig = {
  scannerIntervalMs: 5_000,
  scanHorizonSeconds: 30,
  sqsConcurrency: 16,
  asyncTarget: { heartbeatEveryMs: HEARTBEAT_EVERY_MS, workMs: WORK_MS, poolSize: POOL_SIZE },
};

const nextWholeSecond = (at: number) => Math.ceil(at / 1000) * 1000;
const iso = (at: number) => new Date(at).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isSilentPath = (path: string) => path.includes('/silent/');

/** The plan at a scale (at least 10 runs, so at least one silent worker). */
export function asyncPlanAt(scale: number): AsyncPlan {
  const runs = Math.max(SILENT_EVERY, Math.round(ASYNC_RUNS * scale));
  return {
    runs,
    silent: Math.ceil(runs / SILENT_EVERY),
    heartbeatEveryMs: HEARTBEAT_EVERY_MS,
    workMs: WORK_MS,
    heartbeatTimeoutSeconds: HEARTBEAT_TIMEOUT_SECONDS,
    scannerIntervalMs: CONFIG.scannerIntervalMs,
    poolSize: POOL_SIZE,
  };
}

/** The function name the HandlerMeter gives the heartbeat route's handler (harness.ts: `api:<handler>`). */
function heartbeatFunction(): string {
  const route = ROUTES.find((r) => r.method === 'POST' && r.path.endsWith('/heartbeat'));
  if (!route) throw new Error('no POST .../heartbeat route in ROUTES: the callback routes are not there');
  return `api:${route.handler}`;
}

/** Every run item of the workload's jobs, read with the bench's own client (not counted). */
async function readEndedRuns(chronos: LocalChronos, jobIds: readonly string[]): Promise<EndedRun[]> {
  const dynamodb = new DynamoDBClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: chronos.endpoints.dynamodb,
  });
  const documents = DynamoDBDocument.from(dynamodb);
  const workload = new Set(jobIds);
  const runs: EndedRun[] = [];
  try {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.scan({
        TableName: chronos.tables.runs,
        ProjectionExpression: 'jobId, scheduledFor, attempt, #status, errorType, completedAt, heartbeatDeadline',
        ExpressionAttributeNames: { '#status': 'status' },
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      });
      for (const item of page.Items ?? []) {
        if (!workload.has(item.jobId)) continue;
        runs.push({
          jobId: item.jobId,
          scheduledFor: Number(item.scheduledFor),
          attempt: Number(item.attempt),
          status: String(item.status),
          ...(typeof item.errorType === 'string' ? { errorType: item.errorType } : {}),
          ...(typeof item.completedAt === 'number' ? { completedAt: item.completedAt } : {}),
          ...(typeof item.heartbeatDeadline === 'number' ? { heartbeatDeadline: item.heartbeatDeadline } : {}),
        });
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  } finally {
    dynamodb.destroy();
  }
  return runs;
}

/** What the async target reports of its workers. */
interface TargetState {
  accepted: number;
  withoutCallbackUrl: number;
  working: number;
  callbacks: CallbackRecord[];
}

export const ASYNC_WORKLOAD: Workload = {
  description: `${ASYNC_RUNS.toLocaleString('en-US')} async runs heartbeating every ${HEARTBEAT_EVERY_MS / 1000} s for ${WORK_MS / 1000} s, one in ${SILENT_EVERY} silent after its first heartbeat`,
  config: CONFIG,
  drainMs: 60_000,
  async drive(harness, scale, progress) {
    const plan = asyncPlanAt(scale);
    const due = nextWholeSecond(Date.now() + plan.runs * PLANNED_CREATE_MS + LEAD_MS);
    const target = harness.target.ready.url;
    const pathOf = (i: number) => `/async/${i % SILENT_EVERY === 0 ? 'silent' : 'work'}/${i}`;
    const startedAt = performance.now();
    const jobIds = await createJobsDirectly(
      harness.chronos.tenantId,
      plan.runs,
      32,
      (i) => ({
        target: { url: `${target}${pathOf(i)}` },
        schedule: { type: 'once', at: iso(due) },
        retry: { maxAttempts: 1 },
        async: { heartbeatTimeoutSeconds: plan.heartbeatTimeoutSeconds, maxDurationSeconds: 300 },
      }),
      { materializeAtCreation: false },
    );
    const durationMs = performance.now() - startedAt;
    const created: CreatedJobs = {
      jobIds,
      windows: [],
      targetUrls: jobIds.map((_, i) => `${target}${pathOf(i)}`),
      latenciesMs: [],
      failures: 0,
      durationMs,
    };
    const lead = due - Date.now();
    progress(
      `created ${jobIds.length} async jobs (${plan.silent} silent) in ${Math.round(durationMs)} ms; all due at ${iso(due)}`,
    );
    return {
      expectation: new Map(jobIds.map((id) => [id, [due]])),
      targetPaths: new Map(jobIds.map((id, i) => [id, pathOf(i)])),
      created,
      lastDue: due,
      ...(lead < MIN_LEAD_MS
        ? { setupProblem: `creation ended ${lead} ms before the due time (planned at least ${MIN_LEAD_MS} ms)` }
        : {}),
    };
  },
  observe(harness: Harness, progress: (line: string) => void) {
    const heartbeats = heartbeatFunction(); // fails before the work when the callback routes are missing
    const samples: CounterSample[] = [];
    const sample = () =>
      samples.push({
        at: Date.now(),
        aws: harness.counter.snapshot(),
        invocations: Object.fromEntries(Object.entries(harness.meter.stats).map(([name, s]) => [name, s.invocations])),
      });
    sample();
    const sampler = setInterval(sample, 1_000);
    return {
      async untilDone(until: number) {
        let reported = Date.now();
        for (;;) {
          const working = await harness.target.request<number>('working');
          if (working === 0 || Date.now() >= until) return;
          if (Date.now() - reported >= 10_000) {
            progress(`${working} workers still working`);
            reported = Date.now();
          }
          await sleep(1_000);
        }
      },
      async finish(driven) {
        clearInterval(sampler);
        sample();
        const state = await harness.target.request<TargetState>('async');
        const calls = await harness.target.request<Array<[number, string, string]>>('calls');
        const runs = await readEndedRuns(harness.chronos, driven.created.jobIds);
        const silentJobs = new Set<string>();
        const healthyJobs = new Set<string>();
        for (const [jobId, path] of driven.targetPaths) (isSilentPath(path) ? silentJobs : healthyJobs).add(jobId);
        const ends = asyncEnds(runs, healthyJobs, silentJobs);
        const completes = state.callbacks.filter((c) => c.kind === 'complete').map((c) => c.sentAt);
        const window = heartbeatWindow({
          lastCallAt: calls.reduce((last, [at]) => Math.max(last, at), 0),
          lastDetectionAt: ends.lastDetectionAt,
          firstCompleteAt: completes.length > 0 ? Math.min(...completes) : Number.NaN,
        });
        const report: AsyncReport = {
          plan: { ...asyncPlanAt(1), runs: driven.created.jobIds.length, silent: silentJobs.size },
          accepted: state.accepted,
          callsWithoutCallbackUrl: state.withoutCallbackUrl,
          heartbeats: callbackCounts(state.callbacks, 'heartbeat'),
          completions: callbackCounts(state.callbacks, 'complete'),
          ends,
          heartbeatCost: 'problem' in window ? window : heartbeatCost(samples, window, heartbeats),
        };
        progress(
          `taken ${report.accepted}, heartbeats ${report.heartbeats.ok}/${report.heartbeats.sent} answered 200, ` +
            `SUCCEEDED ${ends.succeeded}, heartbeat timeouts ${ends.heartbeatTimedOut}, detection max ${ends.detectionDelayMs.max} ms`,
        );
        return { async: report };
      },
    };
  },
};
