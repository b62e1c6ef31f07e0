/**
 * Summarizes a V8 .cpuprofile (the CPU probe's BENCH_CPU_PROF file, or `node --cpu-prof` output)
 * without a GUI: self time by function and by module (package, node: module or repository file).
 *   tsx test/bench/profile-summary.ts <file.cpuprofile> [top=15]
 * The profile samples wall time: a syscall that waits (a socket write on a loaded machine) shows
 * larger than the CPU it costs. Read it for ranks; read CPU from the probe's own figure.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** `@smithy/core`, `node:net`, `functions/adapters/...`: where a frame's code lives. */
export function moduleOf(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg?.[1]) return pkg[1];
  if (path.startsWith('node:') || path === '') return path || '(native)';
  const inRepo = /\/((?:functions|test|lib)\/.*)$/.exec(path);
  return inRepo?.[1] ?? path;
}

function top(totals: Map<string, number>, count: number, busy: number): string[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([name, us]) =>
        `${((us / busy) * 100).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(1).padStart(8)} ms  ${name}`,
    );
}

export function summarize(profile: Profile, count: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') {
      idle += us;
      return;
    }
    busy += us;
    const module = moduleOf(frame.url);
    const name = `${frame.functionName || '(anonymous)'}  ${module}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byModule.set(module, (byModule.get(module) ?? 0) + us);
  });
  return [
    `sampled ${((busy + idle) / 1000).toFixed(0)} ms: busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`,
    '',
    'self time by function (% of busy)',
    ...top(byFunction, count, busy),
    '',
    'self time by module',
    ...top(byModule, count, busy),
  ].join('\n');
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const [file, count = '15'] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx test/bench/profile-summary.ts <file.cpuprofile> [top]');
  console.log(summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(count)));
}
