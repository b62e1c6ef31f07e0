/**
 * `chronos`: the command line of the Chronos API, on the typed client (client/). Human output by
 * default (aligned tables, local times), `--json` for scripts. Exit codes: 0 done, 1 an error (an
 * API refusal included: its message names the fields the API named), 2 a usage error.
 */
import { Command, CommanderError } from 'commander';
import cliPackage from '../package.json' with { type: 'json' };
import { CliError, EXIT_ERROR, EXIT_OK, EXIT_USAGE } from './cli-error.ts';
import { registerDeadLetters } from './commands/dead-letters.ts';
import { registerFlowControl } from './commands/flow-control.ts';
import { registerJobs } from './commands/jobs.ts';
import { registerLogin } from './commands/login.ts';
import { registerRuns } from './commands/runs.ts';
import { registerSchedules } from './commands/schedules.ts';
import { registerStats } from './commands/stats.ts';
import { registerWatch } from './commands/watch.ts';
import { registerWorkflows } from './commands/workflows.ts';

export function buildProgram(): Command {
  const program = new Command('chronos')
    .description('Schedule HTTP calls with Chronos: jobs, workflows, runs, flow control, dead letters, stats')
    .version(cliPackage.version)
    .option('--json', 'print the API answer as JSON (for scripts)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });
  registerLogin(program);
  registerJobs(program);
  registerWorkflows(program);
  registerSchedules(program);
  registerRuns(program);
  registerFlowControl(program);
  registerDeadLetters(program);
  registerStats(program);
  registerWatch(program);
  // Every subcommand reports usage errors the same way (exit 2), not by exiting on its own.
  for (const command of program.commands) {
    command.exitOverride().showHelpAfterError('(run with --help for usage)');
    for (const sub of command.commands) sub.exitOverride();
  }
  return program;
}

/** Runs the CLI on `argv` (without node and the script); resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    // Help or the version asked for exit 0; any other complaint of commander's is about the command line.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    if (error instanceof CliError) {
      const json = argv.includes('--json');
      if (json && error.apiError) process.stderr.write(`${JSON.stringify({ error: error.apiError })}\n`);
      else process.stderr.write(`chronos: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`chronos: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_ERROR;
  }
}

process.exitCode = await main(process.argv.slice(2));
