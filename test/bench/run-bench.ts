/**
 * `npm run bench`: runs the limits, the precision rows (one process per N), the three workloads, the
 * async workload (issue #20: heartbeats, detection of missed ones) and the CPU probe, each in its
 * own process with fresh emulators and a time limit, then prints one table, the precision table,
 * the async figures and the PASS/MISS verdicts and writes test/bench/results/<YYYY-MM-DD>.json.
 * Exits 0 when targets are merely missed; 1 on any of report.ts's benchFailures: a call lost,
 * pending at the deadline, duplicated or unplanned, a workload that did not settle or created
 * fewer jobs than planned, a measurement that crashed or timed out, an async run not taken, a
 * callback not answered 200, or an async run that ended otherwise than planned or never.
 *
 *   npm run bench [-- --scale 0.2] [-- --only burst,steady] [-- --only precision] [-- --only async] [-- --only workflows] [-- --only lanes]
 */
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asyncVerdicts, renderAsyncReport } from './async-report.ts';
import { costPerMillion } from './cost.ts';
import { lanesVerdicts, renderLanesReport } from './lanes-report.ts';
import type { Limits } from './limits.ts';
import { burstIntakeLine, PRECISION_SIZES, precisionVerdicts, renderPrecisionTable } from './precision.ts';
import {
  benchFailures,
  type CpuProbeResult,
  physicalFloorOf,
  profileOf,
  renderTable,
  renderVerdicts,
  verdicts,
  type WorkloadResult,
} from './report.ts';
import {
  highestSteadyRate,
  measuredCeiling,
  rateRowOf,
  renderRateTable,
  STEADY_RATES,
  steadyRateVerdicts,
} from './steady-rates.ts';
import { renderWorkflowsReport } from './workflows-report.ts';

/** `timeoutMs` of precision is per N: each row runs in its own process. */
const MODES = [
  { mode: 'limits', timeoutMs: 60_000 },
  { mode: 'precision', timeoutMs: 120_000 },
  { mode: 'rates', timeoutMs: 120_000 },
  { mode: 'immediate', timeoutMs: 260_000 },
  { mode: 'burst', timeoutMs: 260_000 },
  { mode: 'steady', timeoutMs: 200_000 },
  // Creation, the due time's lead, 60 s of heartbeats, detection and settle: about 2 minutes.
  { mode: 'async', timeoutMs: 300_000 },
  // Creation, 100 diamonds at 4/s, 3 wide workflows at one per 2 s, each phase's end and settle: about 2 minutes.
  { mode: 'workflows', timeoutMs: 300_000 },
  // A 1,000-run low flood on a 2 s target (about 50 s at the low lane's 40 calls in flight), the
  // trickles meanwhile, then two 100-run flow-control batches: about 2 minutes.
  { mode: 'lanes', timeoutMs: 300_000 },
  { mode: 'cpu', timeoutMs: 90_000 },
] as const;

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const scale = Number(option('scale') ?? '1');
const only = option('only')?.split(',');
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** Runs one mode in a child process; resolves with its JSON or an error description. */
function runMode(
  mode: string,
  timeoutMs: number,
  extra: string[] = [],
): Promise<{ ok: true; data: unknown } | { ok: false; error: string }> {
  const label = [mode, ...extra].join('-');
  const out = join(tmpdir(), `chronos-bench-${process.pid}-${label}.json`);
  return new Promise((resolve) => {
    const child = fork(here('./workload-process.ts'), [mode, out, String(scale), ...extra], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const timer = setTimeout(() => {
      // SIGTERM first: the child's exit hooks stop DynamoDB Local and its helper processes.
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      resolve({ ok: false, error: `${label} timed out after ${timeoutMs / 1000} s` });
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return resolve({ ok: false, error: `${label} exited with ${code}` });
      try {
        resolve({ ok: true, data: JSON.parse(readFileSync(out, 'utf8')) });
      } catch (error) {
        resolve({ ok: false, error: `${label} wrote no result: ${String(error)}` });
      }
    });
  });
}

async function main(): Promise<number> {
  const startedAt = new Date();
  console.log(
    `Chronos bench, scale ${scale}, ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const results: WorkloadResult[] = [];
  const precision: WorkloadResult[] = [];
  const rateRuns: Array<{ rate: number; result: WorkloadResult }> = [];
  /** The async workload: its figures are per heartbeat and per run, not per execution (async-report.ts). */
  const asyncRuns: WorkloadResult[] = [];
  /** The workflows workload: its figures are per task run and per workflow run, by shape (workflows-report.ts). */
  const workflowRuns: WorkloadResult[] = [];
  /** The lanes workload: start lag per lane and the cost of waiting for a key (lanes-report.ts). */
  const laneRuns: WorkloadResult[] = [];
  const errors: string[] = [];
  let limits: Limits | undefined;
  let cpu: CpuProbeResult | undefined;
  for (const { mode, timeoutMs } of MODES) {
    if (only && !only.includes(mode)) continue;
    const t0 = Date.now();
    if (mode === 'precision') {
      for (const n of PRECISION_SIZES) {
        const t1 = Date.now();
        // Creation, a lead that grows with N (precisionConfig) and the drain: 40 ms more per job.
        const limitMs = timeoutMs + Math.round(n * scale * 40);
        console.log(`── precision N=${n} × scale ${scale} (limit ${limitMs / 1000} s)`);
        const outcome = await runMode(mode, limitMs, [String(n)]);
        if (!outcome.ok) {
          errors.push(outcome.error);
          console.log(`   ${outcome.error}`);
          continue;
        }
        precision.push(outcome.data as WorkloadResult);
        console.log(`   done in ${((Date.now() - t1) / 1000).toFixed(0)} s`);
      }
      console.log(`   precision done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
      continue;
    }
    if (mode === 'rates') {
      for (const base of STEADY_RATES) {
        const rate = Math.max(1, Math.round(base * scale));
        const t1 = Date.now();
        console.log(`── steady rate ${rate}/s (limit ${timeoutMs / 1000} s)`);
        const outcome = await runMode('rate', timeoutMs, [String(rate)]);
        if (!outcome.ok) {
          errors.push(outcome.error);
          console.log(`   ${outcome.error}`);
          continue;
        }
        rateRuns.push({ rate, result: outcome.data as WorkloadResult });
        console.log(`   done in ${((Date.now() - t1) / 1000).toFixed(0)} s`);
      }
      continue;
    }
    console.log(`── ${mode} (limit ${timeoutMs / 1000} s)`);
    const outcome = await runMode(mode, timeoutMs);
    if (!outcome.ok) {
      errors.push(outcome.error);
      console.log(`   ${outcome.error}`);
      continue;
    }
    if (mode === 'limits') limits = outcome.data as Limits;
    else if (mode === 'cpu') cpu = outcome.data as CpuProbeResult;
    else if (mode === 'async') asyncRuns.push(outcome.data as WorkloadResult);
    else if (mode === 'workflows') workflowRuns.push(outcome.data as WorkloadResult);
    else if (mode === 'lanes') laneRuns.push(outcome.data as WorkloadResult);
    else results.push(outcome.data as WorkloadResult);
    console.log(`   done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }

  if (results.length > 0 || limits || cpu) console.log(`\n${renderTable(results, limits, cpu)}\n`);
  const rows = precision.flatMap((result) => (result.precision ? [result.precision.row] : []));
  const stages = precision.flatMap((result) => (result.precision ? [result.precision.stages] : []));
  if (precision.length > 0) console.log(`\n${renderPrecisionTable(rows, stages)}\n`);
  const intakeLine = burstIntakeLine(rows, limits?.targetBurstIntake);
  if (intakeLine) console.log(`${intakeLine}\n`);
  const rateRows = rateRuns.map(({ rate, result }) => rateRowOf(result, rate));
  const ceiling = measuredCeiling(results, rateRows);
  if (rateRows.length > 0) console.log(`\n${renderRateTable(rateRows, ceiling)}\n`);
  for (const run of asyncRuns) if (run.async) console.log(`\n${renderAsyncReport(run.async)}\n`);
  for (const run of workflowRuns) if (run.workflows) console.log(`\n${renderWorkflowsReport(run.workflows)}\n`);
  for (const run of laneRuns) if (run.lanes) console.log(`\n${renderLanesReport(run.lanes)}\n`);
  const list = [
    ...verdicts(results, cpu),
    ...precisionVerdicts(rows),
    ...steadyRateVerdicts(rateRows, ceiling),
    ...asyncRuns.flatMap((run) => (run.async ? asyncVerdicts(run.async) : [])),
    // The per-call checks (lost, pending, duplicate, unexpected); no per-execution target applies.
    ...verdicts(workflowRuns),
    ...verdicts(laneRuns),
    ...laneRuns.flatMap((run) => (run.lanes ? lanesVerdicts(run.lanes) : [])),
  ];
  console.log(renderVerdicts(list));

  const date = startedAt.toISOString().slice(0, 10);
  const dir = here('./results');
  mkdirSync(dir, { recursive: true });
  // A partial run (--only) never overwrites the day's full results.
  const file = join(dir, `${date}${only ? `-only-${only.join('+')}` : ''}.json`);
  const summary = results.map((result) => ({
    mode: result.mode,
    profile: profileOf(result),
    costPerMillion: costPerMillion(profileOf(result)),
  }));
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        durationS: Math.round((Date.now() - startedAt.getTime()) / 1000),
        machine: { cores: cpus().length, model: cpus()[0]?.model, loadAverageAtEnd: loadavg(), node: process.version },
        scale,
        limits,
        cpuProbe: cpu,
        summary,
        precision: { rows, stages },
        steadyRates: { rows: rateRows, ceiling, highest: highestSteadyRate(rateRows) },
        async: asyncRuns.map((run) => run.async),
        workflows: workflowRuns.map((run) => run.workflows),
        lanes: laneRuns.map((run) => run.lanes),
        ...(limits
          ? {
              physicalFloors: results
                .filter((result) => result.mode === 'burst')
                .map((result) => ({
                  mode: result.mode,
                  p99Ms: result.delivery.fireLagMs.p99,
                  ...physicalFloorOf(result, limits),
                })),
            }
          : {}),
        verdicts: list,
        errors,
        workloads: results,
        precisionRuns: precision,
        rateRuns: rateRuns.map(({ result }) => result),
        asyncRuns,
        workflowRuns,
        laneRuns,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nresults: ${file}`);

  const failures = benchFailures(
    [...results, ...precision, ...rateRuns.map(({ result }) => result), ...asyncRuns, ...workflowRuns, ...laneRuns],
    errors,
  );
  for (const failure of failures) console.log(`FAILED: ${failure}`);
  if (failures.length === 0)
    console.log('PASSED: every planned call made exactly once, nothing unexpected, system settled');
  return failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
