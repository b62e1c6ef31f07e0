/** What every command action starts from: the output mode (--json) and the API client. */
import type { Command } from 'commander';
import type { ChronosClient } from '../../../client/src/index.ts';
import { type Output, outputFor } from '../output.ts';
import { currentClient } from '../session.ts';

export interface CommandContext {
  out: Output;
  client: () => Promise<ChronosClient>;
}

/** The context of the command being run (its global --json included). */
export function contextOf(command: Command): CommandContext {
  const { json } = command.optsWithGlobals<{ json?: boolean }>();
  return { out: outputFor(json === true), client: currentClient };
}
