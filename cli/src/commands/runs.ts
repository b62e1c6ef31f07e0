/** `chronos runs get|cancel`: one run (with an async run's progress and checkpoint), and its soft cancel. */
import type { Command } from 'commander';
import { dataOf } from '../output.ts';
import { runView } from '../views.ts';
import { contextOf } from './context.ts';

export function registerRuns(program: Command): void {
  const runs = program.command('runs').description('one run: read it, cancel it');

  runs
    .command('get <runId>')
    .description('a run: timings, outcome, and an async run’s progress, checkpoint and output')
    .action(async (runId: string, _flags: unknown, command: Command) => {
      const { out, client } = contextOf(command);
      const run = dataOf(await (await client()).runs.get(runId));
      out.result(run, () => runView(run));
    });

  runs
    .command('cancel <runId>')
    .description('a queued run ends at once; an async run in flight is asked to stop (ends after its grace)')
    .action(async (runId: string, _flags: unknown, command: Command) => {
      const { out, client } = contextOf(command);
      const run = dataOf(await (await client()).runs.cancel(runId));
      out.result(run, () =>
        run.status === 'CANCELLED'
          ? `Run ${run.runId} is CANCELLED`
          : `Run ${run.runId}: cancel requested (${run.status})`,
      );
    });
}
