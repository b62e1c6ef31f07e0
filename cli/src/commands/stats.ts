/** `chronos stats [--window 5m|1h|24h]`: your jobs by status, runs, rates and latency percentiles. */
import { type Command, Option } from 'commander';
import { dataOf } from '../output.ts';
import { statsView } from '../views.ts';
import { contextOf } from './context.ts';

export function registerStats(program: Command): void {
  program
    .command('stats')
    .description('counts, rates and latency percentiles of your runs')
    .addOption(new Option('--window <window>', 'the period').choices(['5m', '1h', '24h']).default('1h'))
    .action(async (flags: { window: '5m' | '1h' | '24h' }, command: Command) => {
      const { out, client } = contextOf(command);
      const stats = dataOf(await (await client()).monitoring.stats({ window: flags.window }));
      out.result(stats, () => statsView(stats));
    });
}
