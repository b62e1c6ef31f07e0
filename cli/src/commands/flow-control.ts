/** `chronos flow-control get <key>`: a flow-control key's limits, its runs in flight and its runs waiting. */
import type { Command } from 'commander';
import { dataOf } from '../output.ts';
import { flowControlView } from '../views.ts';
import { contextOf } from './context.ts';

export function registerFlowControl(program: Command): void {
  const flowControl = program
    .command('flow-control')
    .description("flow control per key: the limits jobs wrote, and the key's runs now");

  flowControl
    .command('get <key>')
    .description("a key's limits (the ones a job or task wrote last), runs in flight and runs waiting")
    .action(async (key: string, _flags: unknown, command: Command) => {
      const { out, client } = contextOf(command);
      const state = dataOf(await (await client()).flowControl.get(key));
      out.result(state, () => flowControlView(state));
    });
}
