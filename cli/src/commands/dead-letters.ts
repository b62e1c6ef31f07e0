/** `chronos dead-letters list|redrive`: runs that failed for good, and sending one again. */
import type { Command } from 'commander';
import { integer } from '../arguments.ts';
import { dataOf } from '../output.ts';
import { runsTable } from '../views.ts';
import { contextOf } from './context.ts';
import { listed } from './jobs.ts';

export function registerDeadLetters(program: Command): void {
  const deadLetters = program.command('dead-letters').description('runs that failed for good');

  deadLetters
    .command('list')
    .description('your dead-lettered runs, newest first')
    .option('--limit <n>', 'at most this many runs (default 50)', integer, 50)
    .action(async (flags: { limit: number }, command: Command) => {
      const { out, client } = contextOf(command);
      const api = await client();
      const runs = await listed(async () => {
        const items = [];
        if (flags.limit > 0) {
          for await (const run of api.deadLetters.list({ limit: Math.min(100, flags.limit) })) {
            items.push(run);
            if (items.length >= flags.limit) break;
          }
        }
        return items;
      });
      out.result(runs, () => (runs.length === 0 ? 'No dead letters.' : runsTable(runs)));
    });

  deadLetters
    .command('redrive <runId>')
    .description('run a dead-lettered occurrence again, now, as a new attempt')
    .action(async (runId: string, _flags: unknown, command: Command) => {
      const { out, client } = contextOf(command);
      const run = dataOf(await (await client()).deadLetters.redrive(runId));
      out.result(run, () => `Re-driven as run ${run.runId} (attempt ${run.attempt}, ${run.status})`);
    });
}
