/**
 * `chronos watch <jobId>`: the job's latest runs as a live table, redrawn every `--interval`
 * seconds until Ctrl-C. `--once` draws it once and exits (scripts, tests); with --json each
 * refresh is one JSON line `{ job, runs }`.
 */
import type { Command } from 'commander';
import type { Job, Run } from '../../../client/src/index.ts';
import { integer } from '../arguments.ts';
import { UsageError } from '../cli-error.ts';
import { dataOf } from '../output.ts';
import { localTime } from '../time.ts';
import { runsTable, scheduleText } from '../views.ts';
import { contextOf } from './context.ts';
import { recentRuns } from './jobs.ts';

const CLEAR_SCREEN = '\x1b[2J\x1b[H';

function frame(job: Job, runs: Run[], intervalSeconds: number, live: boolean): string {
  const heading = `${job.jobId}${job.name ? ` (${job.name})` : ''}  ${job.status}  ${scheduleText(job.schedule)}  next ${localTime(job.nextFireAt)}`;
  const footer = live ? `\nRefreshed ${localTime(Date.now())}, every ${intervalSeconds} s. Ctrl-C to stop.` : '';
  return `${heading}\n\n${runsTable(runs)}${footer}`;
}

export function registerWatch(program: Command): void {
  program
    .command('watch <jobId>')
    .description("a live table of a job's runs, refreshed until Ctrl-C")
    .option('--interval <seconds>', 'seconds between refreshes (default 2)', integer, 2)
    .option('--limit <n>', 'runs shown (default 15)', integer, 15)
    .option('--once', 'draw the table once and exit')
    .action(async (jobId: string, flags: { interval: number; limit: number; once?: boolean }, command: Command) => {
      if (flags.interval < 1 || flags.interval > 3600)
        throw new UsageError('--interval must be from 1 to 3600 seconds');
      const { out, client } = contextOf(command);
      const api = await client();
      const live = !flags.once && !out.json && process.stdout.isTTY === true;
      let stopped = false;
      const stop = () => {
        stopped = true;
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        do {
          const job = dataOf(await api.jobs.get(jobId));
          const runs = await recentRuns({ client: async () => api }, jobId, { limit: flags.limit });
          if (out.json) process.stdout.write(`${JSON.stringify({ job, runs })}\n`);
          else process.stdout.write(`${live ? CLEAR_SCREEN : ''}${frame(job, runs, flags.interval, live)}\n`);
          if (flags.once) break;
          await sleepUnless(() => stopped, flags.interval * 1000);
        } while (!stopped);
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}

/** Waits `ms`, waking early (every 100 ms) once `stopped` says so. */
async function sleepUnless(stopped: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!stopped() && Date.now() < until)
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, until - Date.now())));
}
