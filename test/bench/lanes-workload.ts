/**
 * The lanes workload (issue #22's bench): a mixed load in two phases.
 *
 * - **lanes**: a flood of `low` run-now jobs against a target that takes 2 s per call (enough to
 *   keep the low lane's executors busy for most of a minute), and meanwhile a trickle of `high`
 *   (5/s) and `normal` (2/s) one-time jobs due 2–3 s after their creation. Reported: each lane's
 *   start lag (arrival at the target minus the due time) — the high lane's must stay within 1 s
 *   however deep the low lane's backlog.
 * - **flow**: 100 plain run-now jobs (the baseline), then 100 run-now jobs on one flow-control key
 *   at `ratePerSecond: 20`, each batch alone between counter samples, so the difference per run is
 *   what waiting for the key costs (write and read units, SQS requests, executor invocations).
 *   Reported: the spread of the keyed calls, the most in any second, and the runs' `waitedMs`.
 *
 * Jobs are created through the create-job use case in this process (direct-create.ts): the API's
 * cost is measured by the other workloads. Every planned call is expected exactly once (delivery.ts).
 */
import { loadavg } from 'node:os';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import type { Priority } from '#core/priority';
import type { LocalChronos } from '#local/chronos-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import type { CreatedJobs } from './api-load.ts';
import type { Expectation } from './delivery.ts';
import { directCreator } from './direct-create.ts';
import type { Harness, HarnessConfig } from './harness.ts';
import { firstArrivalByPath, type LanesReport, maxInWindow, perRunCost, startLags } from './lanes-report.ts';
import { summarize } from './stats.ts';
import type { PhaseSample } from './workflows-report.ts';
import type { Workload } from './workloads.ts';

export const LOW_FLOOD = 1_000;
export const LOW_WORK_MS = 2_000;
const TRICKLE_SECONDS = 20;
const TRICKLE_PER_SECOND: Record<Exclude<Priority, 'low'>, number> = { high: 5, normal: 2 };
/** How far ahead of its creation a trickle job is due (rounded up to its second). */
const TRICKLE_LEAD_MS = 2_000;
export const FLOW_RUNS = 100;
export const FLOW_RATE = 20;
const FLOW_KEY = 'bench-key';
/** Longest wait for one phase's calls. */
const PHASE_LIMIT_MS = 120_000;

/** The normal lane's pollers as every workload has them; the other lanes at the local defaults (high 8, low 4). */
const CONFIG: HarnessConfig = { scannerIntervalMs: 5_000, scanHorizonSeconds: 30, sqsConcurrency: 16 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nextWholeSecond = (at: number) => Math.ceil(at / 1000) * 1000;
const iso = (at: number) => new Date(at).toISOString();

/** Each keyed run's waitedMs (0 when it never waited), read with the bench's own client (not counted). */
async function readWaitedMs(chronos: LocalChronos, jobIds: ReadonlySet<string>): Promise<number[]> {
  const dynamodb = new DynamoDBClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: chronos.endpoints.dynamodb,
  });
  const documents = DynamoDBDocument.from(dynamodb);
  const waited: number[] = [];
  try {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await documents.scan({
        TableName: chronos.tables.runs,
        ProjectionExpression: 'jobId, waitedMs',
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      });
      for (const run of page.Items ?? [])
        if (jobIds.has(String(run.jobId))) waited.push(typeof run.waitedMs === 'number' ? run.waitedMs : 0);
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  } finally {
    dynamodb.destroy();
  }
  return waited;
}

/** The lanes workload; a fresh one per measurement (its phases live in the closure). */
export function lanesWorkload(): Workload {
  let harnessRef: Harness | undefined;
  const dueByLane: Record<Priority, Map<string, number>> = { high: new Map(), normal: new Map(), low: new Map() };
  const keyedJobs = new Set<string>();
  const keyedPaths = new Set<string>();
  const samples: PhaseSample[] = [];
  let lowRuns = 0;
  let flowRuns = 0;

  const sample = async (harness: Harness): Promise<PhaseSample> => ({
    at: Date.now(),
    aws: harness.counter.snapshot(),
    sqsServer: await harness.sqs.request<Record<string, number>>('requests'),
    invocations: Object.fromEntries(Object.entries(harness.meter.stats).map(([name, s]) => [name, s.invocations])),
  });

  /** Waits until the handlers' AWS requests stop for `quietMs` (a phase's last writes are in). */
  const quiesce = async (harness: Harness, quietMs = 1_500, maxMs = 30_000) => {
    const deadline = Date.now() + maxMs;
    let last = harness.counter.total();
    let stableSince = Date.now();
    while (Date.now() < deadline) {
      await sleep(250);
      const now = harness.counter.total();
      if (now !== last) {
        last = now;
        stableSince = Date.now();
      } else if (Date.now() - stableSince >= quietMs) return;
    }
  };

  const waitForCount = async (harness: Harness, count: number) => {
    const until = Date.now() + PHASE_LIMIT_MS;
    while (Date.now() < until && (await harness.target.request<number>('count')) < count) await sleep(250);
  };

  return {
    description: `${LOW_FLOOD} low run-now jobs on a ${LOW_WORK_MS / 1000} s target with high (5/s) and normal (2/s) one-time jobs meanwhile; then ${FLOW_RUNS} run-now jobs on one key at ${FLOW_RATE}/s against as many without a key`,
    config: CONFIG,
    drainMs: 30_000,
    async drive(harness, scale, progress) {
      harnessRef = harness;
      const target = harness.target.ready.url;
      const create = await directCreator(harness.chronos.tenantId);
      const created: CreatedJobs = {
        jobIds: [],
        windows: [],
        targetUrls: [],
        latenciesMs: [],
        failures: 0,
        durationMs: 0,
      };
      const expectation: Expectation = new Map();
      const targetPaths = new Map<string, string>();
      const createdAt = performance.now();
      /** Creates one job and plans its one call: at `due`, or (run-now) within its create's window. */
      const plan = async (path: string, body: Record<string, unknown>, due?: number) => {
        try {
          const made = await create({ target: { url: `${target}${path}` }, ...body });
          created.jobIds.push(made.jobId);
          created.latenciesMs.push(made.to - made.from);
          targetPaths.set(made.jobId, path);
          expectation.set(made.jobId, due === undefined ? { from: made.from, to: made.to } : [due]);
          return made;
        } catch (error) {
          created.failures++;
          created.firstFailure ??= String(error).slice(0, 300);
          return undefined;
        }
      };

      // Phase 1: the low flood, then the trickles while it drains.
      lowRuns = Math.max(10, Math.round(LOW_FLOOD * scale));
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < lowRuns) {
            const i = next++;
            const path = `/low/${i}?workMs=${LOW_WORK_MS}`;
            const made = await plan(path, { schedule: { type: 'once' }, priority: 'low' });
            if (made) dueByLane.low.set(path, made.to);
          }
        }),
      );
      progress(`created ${lowRuns} low run-now jobs in ${Math.round(performance.now() - createdAt)} ms`);
      const trickleStart = Date.now();
      const trickles = (['high', 'normal'] as const).map(async (lane) => {
        const count = Math.max(2, Math.round(TRICKLE_PER_SECOND[lane] * TRICKLE_SECONDS * scale));
        const paceMs = (TRICKLE_SECONDS * 1000) / count;
        for (let k = 0; k < count; k++) {
          await sleep(Math.max(0, trickleStart + k * paceMs - Date.now()));
          const due = nextWholeSecond(Date.now() + TRICKLE_LEAD_MS);
          const path = `/${lane}/${k}`;
          const made = await plan(path, { schedule: { type: 'once', at: iso(due) }, priority: lane }, due);
          if (made) dueByLane[lane].set(path, due);
        }
      });
      await Promise.all(trickles);
      const phaseOneCalls = created.jobIds.length;
      await waitForCount(harness, phaseOneCalls);
      progress(`lanes phase: ${await harness.target.request<number>('count')}/${phaseOneCalls} calls`);

      // Phase 2: the baseline, then the same number of runs on one key.
      flowRuns = Math.max(10, Math.round(FLOW_RUNS * scale));
      const batch = async (name: 'base' | 'keyed', extra: Record<string, unknown>) => {
        await quiesce(harness);
        samples.push(await sample(harness));
        const before = created.jobIds.length;
        await Promise.all(
          Array.from({ length: flowRuns }, async (_, i) => {
            const made = await plan(`/${name}/${i}`, { schedule: { type: 'once' }, ...extra });
            if (made && name === 'keyed') {
              keyedJobs.add(made.jobId);
              keyedPaths.add(`/${name}/${i}`);
            }
          }),
        );
        await waitForCount(harness, created.jobIds.length);
        progress(`${name}: ${created.jobIds.length - before} runs called`);
      };
      await batch('base', {});
      await batch('keyed', { flowControl: { key: FLOW_KEY, ratePerSecond: FLOW_RATE } });
      await quiesce(harness);
      samples.push(await sample(harness));
      created.durationMs = performance.now() - createdAt;
      return { expectation, targetPaths, created, lastDue: Date.now() };
    },
    observe() {
      return {
        async untilDone() {},
        async finish() {
          const harness = harnessRef as Harness;
          const calls = await harness.target.request<Array<[number, string, string]>>('calls');
          const arrivals = firstArrivalByPath(calls);
          const lane = (name: Priority) => {
            const bare = new Map([...dueByLane[name]].map(([path, due]) => [path.split('?')[0] as string, due]));
            return { runs: dueByLane[name].size, startLagMs: summarize(startLags(arrivals, bare)) };
          };
          const keyedArrivals = [...keyedPaths].flatMap((path) => {
            const at = arrivals.get(path);
            return at === undefined ? [] : [at];
          });
          const [b0, b1, b2] = samples as [PhaseSample, PhaseSample, PhaseSample];
          const report: LanesReport = {
            lowFlood: { runs: lowRuns, workMs: LOW_WORK_MS },
            lanes: { high: lane('high'), normal: lane('normal'), low: lane('low') },
            flow: {
              runs: keyedArrivals.length,
              ratePerSecond: FLOW_RATE,
              spreadMs: keyedArrivals.length ? Math.max(...keyedArrivals) - Math.min(...keyedArrivals) : Number.NaN,
              maxInOneSecond: maxInWindow(keyedArrivals),
              waitedMs: summarize(await readWaitedMs(harness.chronos, keyedJobs)),
              baseline: perRunCost(b0, b1, flowRuns),
              keyed: perRunCost(b1, b2, flowRuns),
            },
            loadAverage: loadavg(),
          };
          return { lanes: report };
        },
      };
    },
  };
}
