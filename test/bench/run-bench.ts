/**
 * `npm run bench`: runs the limits, the three workloads and the CPU probe, each in its own process
 * with fresh emulators and a time limit, then prints one table and the PASS/MISS verdicts and
 * writes test/bench/results/<YYYY-MM-DD>.json. Exits 0 when targets are merely missed; 1 on any of
 * report.ts's benchFailures: a call lost, pending at the deadline, duplicated or unplanned, a
 * workload that did not settle or created fewer jobs than planned, a measurement that crashed or timed out.
 *
 *   npm run bench [-- --scale 0.2] [-- --only burst,steady]
 */
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { costPerMillion } from './cost.ts';
import type { Limits } from './limits.ts';
import {
  benchFailures,
  type CpuProbeResult,
  profileOf,
  renderTable,
  renderVerdicts,
  verdicts,
  type WorkloadResult,
} from './report.ts';

const MODES = [
  { mode: 'limits', timeoutMs: 60_000 },
  { mode: 'immediate', timeoutMs: 260_000 },
  { mode: 'burst', timeoutMs: 260_000 },
  { mode: 'steady', timeoutMs: 200_000 },
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
function runMode(mode: string, timeoutMs: number): Promise<{ ok: true; data: unknown } | { ok: false; error: string }> {
  const out = join(tmpdir(), `chronos-bench-${process.pid}-${mode}.json`);
  return new Promise((resolve) => {
    const child = fork(here('./workload-process.ts'), [mode, out, String(scale)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const timer = setTimeout(() => {
      // SIGTERM first: the child's exit hooks stop DynamoDB Local and its helper processes.
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      resolve({ ok: false, error: `${mode} timed out after ${timeoutMs / 1000} s` });
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return resolve({ ok: false, error: `${mode} exited with ${code}` });
      try {
        resolve({ ok: true, data: JSON.parse(readFileSync(out, 'utf8')) });
      } catch (error) {
        resolve({ ok: false, error: `${mode} wrote no result: ${String(error)}` });
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
  const errors: string[] = [];
  let limits: Limits | undefined;
  let cpu: CpuProbeResult | undefined;
  for (const { mode, timeoutMs } of MODES) {
    if (only && !only.includes(mode)) continue;
    const t0 = Date.now();
    console.log(`── ${mode} (limit ${timeoutMs / 1000} s)`);
    const outcome = await runMode(mode, timeoutMs);
    if (!outcome.ok) {
      errors.push(outcome.error);
      console.log(`   ${outcome.error}`);
      continue;
    }
    if (mode === 'limits') limits = outcome.data as Limits;
    else if (mode === 'cpu') cpu = outcome.data as CpuProbeResult;
    else results.push(outcome.data as WorkloadResult);
    console.log(`   done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }

  console.log(`\n${renderTable(results, limits, cpu)}\n`);
  const list = verdicts(results, cpu);
  console.log(renderVerdicts(list));

  const date = startedAt.toISOString().slice(0, 10);
  const dir = here('./results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${date}.json`);
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
        verdicts: list,
        errors,
        workloads: results,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`\nresults: ${file}`);

  const failures = benchFailures(results, errors);
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
