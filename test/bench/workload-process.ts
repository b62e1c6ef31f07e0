/**
 * One bench measurement in its own process (fresh emulators, and the real handler modules load
 * once per process): `tsx test/bench/workload-process.ts <burst|steady|immediate|async|workflows|lanes|cpu|limits> <out.json> [scale]`,
 * or `... precision <out.json> <scale> <N>` for one row of the precision table.
 * Progress goes to stderr; the handlers' own log lines (stdout) are counted and dropped.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { createJobs } from './api-load.ts';
import { ASYNC_WORKLOAD } from './async-workload.ts';
import { deliveryReport, type RecordedCall } from './delivery.ts';
import { type Harness, startHarness } from './harness.ts';
import { lanesWorkload } from './lanes-workload.ts';
import { measureLimits } from './limits.ts';
import { precisionRow, precisionWorkload, stageLags } from './precision.ts';
import type { WorkloadResult } from './report.ts';
import { readRunStamps } from './run-stamps.ts';
import { describeState, isSettled, stateReader } from './settle.ts';
import { summarize } from './stats.ts';
import { steadyRateWorkload } from './steady-rates.ts';
import { listenOverflows, listenOverflowsSince } from './target-backlog.ts';
import { workflowsWorkload } from './workflows-workload.ts';
import { CPU_PROBE, WORKLOADS, type Workload } from './workloads.ts';

const [mode = '', outPath = '', scaleArg = '1', sizeArg = ''] = process.argv.slice(2);
const scale = Number(scaleArg);
const progress = (line: string) => process.stderr.write(`[bench:${mode}${sizeArg ? ` N=${sizeArg}` : ''}] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let logBytes = 0;
/** Handlers' warnings and errors by message (what a workload's logBytes are made of). */
const warnings: Record<string, number> = {};
const byteLength = (chunk: string | Uint8Array) =>
  typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
process.stdout.write = ((chunk: string | Uint8Array) => {
  logBytes += byteLength(chunk);
  return true;
}) as typeof process.stdout.write;
// Handlers log warnings and errors as JSON lines on stderr: count those too, keep the bench's own lines.
const writeStderr = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  if (String(chunk).startsWith('{"level"')) {
    logBytes += byteLength(chunk);
    const message = /"message":"([^"]{0,120})/.exec(String(chunk))?.[1] ?? '?';
    warnings[message] = (warnings[message] ?? 0) + 1;
    return true;
  }
  return (writeStderr as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
}) as typeof process.stderr.write;

// Exit (and so run the emulators' exit hooks) when the bench's time limit ends this measurement.
process.once('SIGTERM', () => process.exit(1));

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/**
 * Waits until the handlers' AWS requests stop for `quietMs`; false if `maxMs` passes first. Only
 * the CPU probe uses it, to open its measuring windows on a quiet process; whether a workload is
 * finished is judged from the system's state (settle.ts), never from a lull.
 */
async function quiesce(harness: Harness, quietMs = 2_000, maxMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  let last = harness.counter.total();
  let stableSince = Date.now();
  while (Date.now() < deadline) {
    await sleep(250);
    const now = harness.counter.total();
    if (now !== last) {
      last = now;
      stableSince = Date.now();
    } else if (Date.now() - stableSince >= quietMs) return true;
  }
  return false;
}

/**
 * How long the system may take to settle once the calls are in (or the drain time is over): the
 * completion handler's last records and any redelivery. What is still missing then is a failure.
 */
const SETTLE_MS = 20_000;

/** Polls the system's state until it has settled or `limitMs` passed; returns the last state read. */
async function waitUntilSettled(
  harness: Harness,
  jobIds: readonly string[],
  limitMs: number,
  options: { jobsStayActive?: boolean } = {},
) {
  const reader = stateReader(harness.chronos, jobIds, options);
  const startedAt = Date.now();
  try {
    for (;;) {
      const state = await reader.read();
      const settled = isSettled(state);
      if (settled || Date.now() - startedAt >= limitMs) {
        progress(`${settled ? 'settled' : `not settled after ${limitMs / 1000} s`}: ${describeState(state)}`);
        return { settled, waitedMs: Date.now() - startedAt, state };
      }
      await sleep(1_000);
    }
  } finally {
    reader.destroy();
  }
}

async function waitForCalls(harness: Harness, count: number, until: number): Promise<void> {
  let reported = 0;
  while (Date.now() < until) {
    const got = await harness.target.request<number>('count');
    if (got >= count) return;
    if (got - reported >= 1000) {
      progress(`${got}/${count} calls`);
      reported = got;
    }
    await sleep(250);
  }
}

async function runWorkload(name: WorkloadResult['mode'], workload: Workload): Promise<WorkloadResult> {
  progress(`starting emulators for ${name}: ${workload.description}`);
  const harness = await startHarness(workload.config);
  try {
    const cpuBefore = process.cpuUsage();
    const overflowsBefore = listenOverflows();
    const startedAt = Date.now();
    const observer = workload.observe?.(harness, progress);
    const driven = await workload.drive(harness, scale, progress);
    if (driven.created.firstFailure)
      progress(`creates failed: ${driven.created.failures}; first: ${driven.created.firstFailure}`);
    if (driven.setupProblem) progress(`setup overran: ${driven.setupProblem}`);
    let expected = 0;
    for (const wanted of driven.expectation.values()) expected += Array.isArray(wanted) ? wanted.length : 1;
    const drained = Math.max(Date.now(), driven.lastDue) + workload.drainMs;
    await waitForCalls(harness, expected, drained);
    // The work that follows the calls (async runs' heartbeats): as long again as the drain, after it.
    await observer?.untilDone(Math.max(Date.now(), drained) + workload.drainMs);
    const settle = await waitUntilSettled(harness, driven.created.jobIds, workload.settleMs ?? SETTLE_MS, {
      jobsStayActive: workload.jobsStayActive === true,
    });
    const processCpuMs = cpuMs(process.cpuUsage(cpuBefore));
    const targetListenOverflows = listenOverflowsSince(overflowsBefore);
    if (targetListenOverflows)
      progress(`${targetListenOverflows} connections overflowed a listen queue: they came a second late`);
    // Read after the state: a call that lands in between counts as made, never as missing.
    const calls = await harness.target.request<RecordedCall[]>('calls');
    const delivery = deliveryReport(calls, driven.expectation, settle.state.leftovers, driven.targetPaths);
    progress(
      `delivered ${delivery.delivered}/${delivery.expected}, lost ${delivery.lost}, pending ${delivery.pending}, ` +
        `duplicates ${delivery.duplicates}, unexpected ${delivery.unexpected}, lag p99 ${delivery.fireLagMs.p99} ms`,
    );
    const observed = await observer?.finish(driven);
    const precision =
      name === 'precision'
        ? {
            row: precisionRow(Number(sizeArg), calls, driven.expectation),
            stages: stageLags(await readRunStamps(harness.chronos, driven.created.jobIds)),
          }
        : undefined;
    return {
      mode: name,
      description: workload.description,
      config: workload.config,
      scale,
      wallMs: Date.now() - startedAt,
      created: {
        count: driven.created.jobIds.length,
        failures: driven.created.failures,
        ...(driven.created.firstFailure ? { firstFailure: driven.created.firstFailure } : {}),
        durationMs: Math.round(driven.created.durationMs),
        latencyMs: summarize(driven.created.latenciesMs),
      },
      ...(driven.setupProblem ? { setupProblem: driven.setupProblem } : {}),
      delivery,
      settle: {
        settled: settle.settled,
        waitedMs: settle.waitedMs,
        limitMs: workload.settleMs ?? SETTLE_MS,
        state: describeState(settle.state),
      },
      aws: harness.counter.snapshot(),
      sqsServerRequests: await harness.sqs.request<Record<string, number>>('requests'),
      handlers: harness.meter.stats,
      processCpuMs,
      logBytes,
      warningsByMessage: warnings,
      // Other work on the machine shows here: the emulators share its cores with everything else.
      loadAverage: loadavg(),
      ...(targetListenOverflows === undefined ? {} : { listenOverflows: targetListenOverflows }),
      loggedProblems: { count: harness.logged.length, first: harness.logged.slice(0, 5) },
      ...(precision ? { precision } : {}),
      ...observed,
    };
  } finally {
    await harness.stop();
  }
}

async function idleCpuMsPerMs(windowMs: number): Promise<number> {
  const before = process.cpuUsage();
  const startedAt = performance.now();
  await sleep(windowMs);
  return cpuMs(process.cpuUsage(before)) / (performance.now() - startedAt);
}

/**
 * With BENCH_CPU_PROF=<file.cpuprofile>, the probe's executor window is profiled with V8's sampling
 * profiler (what `node --cpu-prof` writes, limited to the measured invocations). The profiler costs
 * CPU itself: read ms/execution from a run without it.
 */
async function startProfiler(): Promise<(() => Promise<void>) | undefined> {
  const path = process.env.BENCH_CPU_PROF;
  if (!path) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(path, JSON.stringify(profile));
    session.disconnect();
    progress(`executor window profiled: ${path}`);
  };
}

async function runCpuProbe() {
  progress(`starting emulators: ${CPU_PROBE.description}`);
  const harness = await startHarness(CPU_PROBE.config);
  try {
    // Warm-up: the first invocations load SDK modules and open connections; not part of the steady cost.
    const warmUp = await createJobs(harness.chronos, 20, 8, (i) => ({
      target: { url: `${harness.target.ready.url}/warm-up/${i}` },
      schedule: { type: 'once' },
    }));
    harness.meter.open('executor');
    harness.meter.open('completion');
    await waitForCalls(harness, warmUp.jobIds.length, Date.now() + 30_000);
    await quiesce(harness, 1_000);
    harness.meter.close('executor');
    harness.meter.close('completion');
    await harness.target.request('reset');

    const jobs = Math.round(CPU_PROBE.jobs * Math.min(1, scale * 4));
    const created = await createJobs(harness.chronos, jobs, 8, (i) => ({
      target: { url: `${harness.target.ready.url}/probe/${i}` },
      schedule: { type: 'once' },
    }));
    if (created.jobIds.length === 0) throw new Error(`the probe could not create its jobs: ${created.firstFailure}`);
    await quiesce(harness, 1_000);
    const idle = await idleCpuMsPerMs(2_000);
    progress(`${created.jobIds.length} runs queued; idle background CPU ${(idle * 1000).toFixed(1)} ms/s`);
    const stopProfiler = await startProfiler();
    const requestsBefore = harness.counter.snapshot().requests;
    harness.meter.open('executor', idle);
    await waitForCalls(harness, created.jobIds.length, Date.now() + 60_000);
    await quiesce(harness, 1_000);
    await stopProfiler?.();
    // The AWS requests the executor window made, per execution: what its CPU mostly pays for.
    const executorRequests = Object.fromEntries(
      Object.entries(harness.counter.snapshot().requests)
        .map(([name, count]) => [name, (count - (requestsBefore[name] ?? 0)) / created.jobIds.length] as const)
        .filter(([, perExecution]) => perExecution > 0),
    );
    harness.meter.open('completion', idle);
    await sleep(1_000);
    await quiesce(harness, 1_500);
    const executor = harness.meter.stats.executor;
    const completion = harness.meter.stats.completion;
    const perRecord = (s?: { cpuMs: number; cpuRecords: number }) =>
      s?.cpuRecords ? s.cpuMs / s.cpuRecords : Number.NaN;
    progress(
      `executor ${perRecord(executor).toFixed(3)} ms/execution, completion ${perRecord(completion).toFixed(3)} ms/record`,
    );
    progress(`executor AWS requests per execution: ${JSON.stringify(executorRequests)}`);
    return {
      mode: 'cpu',
      description: CPU_PROBE.description,
      jobs: created.jobIds.length,
      idleCpuMsPerSecond: idle * 1000,
      executor: { ...executor, cpuMsPerExecution: perRecord(executor), awsRequestsPerExecution: executorRequests },
      completion: { ...completion, cpuMsPerRecord: perRecord(completion) },
      calls: await harness.target.request<number>('count'),
    };
  } finally {
    await harness.stop();
  }
}

async function main() {
  let result: unknown;
  if (mode === 'limits') result = await measureLimits(progress);
  else if (mode === 'cpu') result = await runCpuProbe();
  else if (mode === 'precision') {
    if (!(Number(sizeArg) >= 1)) throw new Error(`precision needs its N (a positive number), got '${sizeArg}'`);
    result = await runWorkload('precision', precisionWorkload(Number(sizeArg), scale));
  } else if (mode === 'rate') {
    if (!(Number(sizeArg) >= 1)) throw new Error(`rate needs its executions per second, got '${sizeArg}'`);
    result = await runWorkload('rate', steadyRateWorkload(Number(sizeArg)));
  } else if (mode === 'async') result = await runWorkload('async', ASYNC_WORKLOAD);
  else if (mode === 'workflows') result = await runWorkload('workflows', workflowsWorkload());
  else if (mode === 'lanes') result = await runWorkload('lanes', lanesWorkload());
  else if (mode in WORKLOADS)
    result = await runWorkload(mode as keyof typeof WORKLOADS, WORKLOADS[mode as keyof typeof WORKLOADS]);
  else throw new Error(`unknown mode ${mode}`);
  writeFileSync(outPath, JSON.stringify(result, null, 2));
}

main().then(
  () => process.exit(0),
  (error) => {
    progress(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
