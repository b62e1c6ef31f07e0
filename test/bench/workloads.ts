/**
 * The three workloads of the issue, and the executor CPU probe. Each creates its jobs through
 * the HTTP API (so create latency is the API's) and says which calls it expects.
 */
import { type CreatedJobs, createJobs } from './api-load.ts';
import type { Expectation, OneCallBetween } from './delivery.ts';
import { createJobsDirectly } from './direct-create.ts';
import type { Harness, HarnessConfig } from './harness.ts';
import type { WorkloadResult } from './report.ts';

export interface Driven {
  expectation: Expectation;
  /** Per job, the path of its target URL (each job calls its own). */
  targetPaths: Map<string, string>;
  created: CreatedJobs;
  /** The last due time of any expected call (epoch ms). */
  lastDue: number;
  /**
   * Why the expectation cannot be trusted, when the setup overran the workload's plan (a job
   * created after its first planned occurrence starts its schedule later, so its calls are not the
   * planned ones). The bench fails on it, naming the harness rather than Chronos.
   */
  setupProblem?: string;
}

export interface Workload {
  description: string;
  config: HarnessConfig;
  /** Longest wait for the expected calls after `lastDue`, ms. */
  drainMs: number;
  /** Longest wait, once the calls are in, for the system to settle (runs ended, jobs finished), ms; unset: 20 s. */
  settleMs?: number;
  drive(harness: Harness, scale: number, progress: (line: string) => void): Promise<Driven>;
  /**
   * Its jobs are never finished by design (a workflow's task items stay ACTIVE): settled means its
   * runs ended and the queues are empty; the workload judges its own ends (workflows-workload.ts).
   */
  jobsStayActive?: boolean;
  /** Started before `drive`: measures along the workload and adds its own figures (async-workload.ts). */
  observe?(harness: Harness, progress: (line: string) => void): WorkloadObserver;
}

/** A workload's own measurement, beside what every workload reports. */
export interface WorkloadObserver {
  /** Once the calls are in: waits, at most until `until` (epoch ms), for the work that follows them. */
  untilDone(until: number): Promise<void>;
  /** Once the system settled: the workload's own block of the result. */
  finish(driven: Driven): Promise<Pick<WorkloadResult, 'async' | 'workflows' | 'lanes'>>;
}

/** Burst jobs created over HTTP (for the API latency); the rest go through the use case directly. */
const BURST_API_SAMPLE = 500;

/** Per job created over HTTP, the path of the target URL it was created with. */
const pathsOf = (created: CreatedJobs) =>
  new Map(created.jobIds.map((id, i) => [id, new URL(created.targetUrls[i] as string).pathname]));

const nextWholeSecond = (at: number) => Math.ceil(at / 1000) * 1000;
const iso = (at: number) => new Date(at).toISOString();

export const WORKLOADS: Record<'burst' | 'steady' | 'immediate', Workload> = {
  burst: {
    description: '5,000 one-time jobs all due at the same second (scanner path)',
    // A 30 s horizon keeps creation (due 75 s later) out of it: the scanner materializes the burst.
    config: { scannerIntervalMs: 5_000, scanHorizonSeconds: 30, sqsConcurrency: 16 },
    drainMs: 60_000,
    async drive(harness, scale, progress) {
      const count = Math.round(5_000 * scale);
      const due = nextWholeSecond(Date.now() + 75_000);
      const target = harness.target.ready.url;
      const bodyOf = (i: number) => ({
        target: { url: `${target}/burst/${i}` },
        schedule: { type: 'once', at: iso(due) },
      });
      // The API's latency on a sample over HTTP; the bulk through the same use case in-process.
      const overHttp = Math.min(count, BURST_API_SAMPLE);
      const created = await createJobs(harness.chronos, overHttp, 16, bodyOf);
      progress(`created ${created.jobIds.length} jobs over HTTP in ${Math.round(created.durationMs)} ms`);
      const startedAt = performance.now();
      const direct = await createJobsDirectly(harness.chronos.tenantId, count - overHttp, 32, (i) =>
        bodyOf(overHttp + i),
      );
      // Paths before the direct ids join the list: createJobs' targetUrls cover its own jobs only.
      const targetPaths = pathsOf(created);
      for (const [i, id] of direct.entries()) targetPaths.set(id, `/burst/${overHttp + i}`);
      created.jobIds.push(...direct);
      created.durationMs += performance.now() - startedAt;
      progress(`created ${created.jobIds.length} jobs in ${Math.round(created.durationMs)} ms; all due at ${iso(due)}`);
      return {
        expectation: new Map(created.jobIds.map((id) => [id, [due]])),
        targetPaths,
        created,
        lastDue: due,
      };
    },
  },
  steady: {
    description: '200 recurring jobs every second for 60 s (12,000 executions)',
    config: { scannerIntervalMs: 5_000, scanHorizonSeconds: 15, sqsConcurrency: 16 },
    drainMs: 20_000,
    async drive(harness, scale, progress) {
      const count = Math.round(200 * scale);
      const runs = 60;
      const startAt = nextWholeSecond(Date.now() + 20_000);
      const target = harness.target.ready.url;
      const created = await createJobs(harness.chronos, count, 16, (i) => ({
        target: { url: `${target}/steady/${i}` },
        schedule: { type: 'interval', everySeconds: 1, startAt: iso(startAt), maxRuns: runs },
      }));
      const dues = Array.from({ length: runs }, (_, k) => startAt + k * 1000);
      progress(`created ${created.jobIds.length} recurring jobs; first due ${iso(startAt)}`);
      // A job created after startAt begins at its next occurrence from then: not the planned dues.
      const late = created.windows.filter((window) => window.to > startAt).length;
      return {
        expectation: new Map(created.jobIds.map((id) => [id, dues])),
        targetPaths: pathsOf(created),
        created,
        lastDue: dues[dues.length - 1] as number,
        ...(late > 0
          ? {
              setupProblem: `${late} jobs were created after their first planned occurrence (setup slower than its lead time)`,
            }
          : {}),
      };
    },
  },
  immediate: {
    description: '2,000 run-now jobs submitted as fast as the API accepts them',
    config: { scannerIntervalMs: 5_000, scanHorizonSeconds: 30, sqsConcurrency: 16 },
    drainMs: 40_000,
    async drive(harness, scale, progress) {
      const count = Math.round(2_000 * scale);
      const target = harness.target.ready.url;
      const created = await createJobs(
        harness.chronos,
        count,
        16,
        (i) => ({ target: { url: `${target}/now/${i}` }, schedule: { type: 'once' } }),
        (done) => progress(`created ${done}/${count}`),
      );
      progress(`created ${created.jobIds.length} run-now jobs in ${Math.round(created.durationMs)} ms`);
      // One call per job, for the occurrence the API created it at: due between its create's send and answer.
      const expectation = new Map(created.jobIds.map((id, i) => [id, created.windows[i] as OneCallBetween]));
      return { expectation, targetPaths: pathsOf(created), created, lastDue: Date.now() };
    },
  },
};

/** The CPU probe: run-now jobs queued behind closed gates, then executed one invocation at a time. */
export const CPU_PROBE = {
  description: 'executor and completion CPU per execution, invocations run one at a time on a quiet process',
  config: {
    scannerIntervalMs: 0,
    scanHorizonSeconds: 30,
    sqsConcurrency: 8,
    closedGates: ['executor', 'completion'],
  } satisfies HarnessConfig,
  jobs: 300,
};
