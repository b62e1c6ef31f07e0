/**
 * `chronos workflows create|list|get|edit|pause|resume|delete|trigger|runs` and
 * `chronos workflow-runs get|retry|cancel`. A definition is the JSON body of the API itself
 * (`--file def.json`, `--file -` for stdin): the CLI adds no flags of its own for tasks, so
 * whatever the API accepts can be written, and the API's 400 names what it refuses.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { CreateWorkflow, UpdateWorkflow, WorkflowRun } from '../../../client/src/index.ts';
import { integer } from '../arguments.ts';
import { CliError, UsageError } from '../cli-error.ts';
import { dataOf } from '../output.ts';
import { localTime } from '../time.ts';
import {
  workflowRunsTable,
  workflowRunTasksTable,
  workflowRunView,
  workflowsTable,
  workflowView,
} from '../workflow-views.ts';
import { contextOf } from './context.ts';
import { listed, pageSize, take } from './jobs.ts';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON object in `file` (`-`: stdin); a file that cannot be read or is no JSON object is a usage error naming it. */
export async function definitionFrom(file: string): Promise<Record<string, unknown>> {
  const name = file === '-' ? 'stdin' : file;
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${name}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${name} is not JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${name} must hold a JSON object (the body of the API call), not ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

const ENDED = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

/** Polls the workflow run every `intervalMs` until it ends; its last state. */
async function waitForEnd(read: () => Promise<WorkflowRun>, intervalMs: number): Promise<WorkflowRun> {
  let run = await read();
  while (!ENDED.includes(run.status)) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    run = await read();
  }
  return run;
}

export function registerWorkflows(program: Command): void {
  const workflows = program.command('workflows').description('tasks with dependencies: create, change, run them');

  workflows
    .command('create')
    .description('create a workflow from its definition (the JSON body of POST /v1/workflows)')
    .requiredOption('--file <path>', 'the definition as JSON (`-`: read it from stdin)')
    .option('--idempotency-key <key>', 'a retried create with the same key makes no second workflow')
    .action(async (flags: { file: string; idempotencyKey?: string }, command: Command) => {
      const { out, client } = contextOf(command);
      const body = (await definitionFrom(flags.file)) as unknown as CreateWorkflow;
      const api = await client();
      const workflow = dataOf(
        await api.workflows.create(body, flags.idempotencyKey ? { idempotencyKey: flags.idempotencyKey } : {}),
      );
      out.result(
        workflow,
        () =>
          `Created workflow ${workflow.workflowId} (${workflow.status}, ${workflow.tasks.length} tasks, next ${localTime(workflow.nextFireAt)})`,
      );
    });

  workflows
    .command('list')
    .description('list your workflows, oldest first')
    .option('--limit <n>', 'at most this many workflows (default 100)', integer, 100)
    .action(async (flags: { limit: number }, command: Command) => {
      const { out, client } = contextOf(command);
      const api = await client();
      const items = await listed(() => take(api.workflows.list({ limit: pageSize(flags.limit) }), flags.limit));
      out.result(items, () => workflowsTable(items));
    });

  workflows
    .command('get <workflowId>')
    .description('a workflow and its tasks: what each one waits for, and what it calls')
    .action(async (workflowId: string, _flags: unknown, command: Command) => {
      const { out, client } = contextOf(command);
      const workflow = dataOf(await (await client()).workflows.get(workflowId));
      out.result(workflow, () => workflowView(workflow));
    });

  workflows
    .command('edit <workflowId>')
    .description('change a workflow (the JSON body of PATCH; `tasks` make a new version, runs in flight keep theirs)')
    .requiredOption('--file <path>', 'the fields to change as JSON (`-`: read them from stdin)')
    .action(async (workflowId: string, flags: { file: string }, command: Command) => {
      const { out, client } = contextOf(command);
      const body = (await definitionFrom(flags.file)) as UpdateWorkflow;
      const api = await client();
      const current = dataOf(await api.workflows.get(workflowId));
      const workflow = dataOf(await api.workflows.update(workflowId, body, current.version));
      out.result(workflow, () => `Changed workflow ${workflow.workflowId} (version ${workflow.version})`);
    });

  const transition = (name: 'pause' | 'resume' | 'delete', description: string) =>
    workflows
      .command(`${name} <workflowId>`)
      .description(description)
      .action(async (workflowId: string, _flags: unknown, command: Command) => {
        const { out, client } = contextOf(command);
        const workflow = dataOf(await (await client()).workflows[name](workflowId));
        out.result(workflow, () => `Workflow ${workflow.workflowId} is ${workflow.status}`);
      });
  transition('pause', 'its schedule starts no new run until resumed (runs in flight go on)');
  transition('resume', 'its schedule starts runs again');
  transition('delete', 'end the workflow for good (kept as history)');

  workflows
    .command('trigger <workflowId>')
    .description('one workflow run, now')
    .option('--idempotency-key <key>', 'a retried trigger with the same key starts no second run')
    .option('--wait', 'follow the run until it ends; exit 1 when it FAILED or was CANCELLED')
    .option('--interval <seconds>', 'with --wait: seconds between looks (default 1)', integer, 1)
    .action(
      async (
        workflowId: string,
        flags: { idempotencyKey?: string; wait?: boolean; interval: number },
        command: Command,
      ) => {
        if (flags.interval < 1 || flags.interval > 3600)
          throw new UsageError('--interval must be from 1 to 3600 seconds');
        const { out, client } = contextOf(command);
        const api = await client();
        const started = dataOf(
          await api.workflows.trigger(workflowId, flags.idempotencyKey ? { idempotencyKey: flags.idempotencyKey } : {}),
        );
        if (!flags.wait) {
          out.result(started, () => `Triggered workflow run ${started.workflowRunId} (${started.status})`);
          return;
        }
        out.human(`Triggered workflow run ${started.workflowRunId}, waiting for it to end…`);
        const run = await waitForEnd(
          async () => dataOf(await api.workflowRuns.get(started.workflowRunId)),
          flags.interval * 1000,
        );
        out.result(run, () => `${workflowRunTasksTable(run)}\n\nWorkflow run ${run.workflowRunId} ${run.status}`);
        if (run.status !== 'SUCCEEDED') throw new CliError(`workflow run ${run.workflowRunId} ended ${run.status}`);
      },
    );

  workflows
    .command('runs <workflowId>')
    .description("a workflow's runs, newest first, with how many tasks stand at each status")
    .option('--limit <n>', 'at most this many runs (default 20)', integer, 20)
    .action(async (workflowId: string, flags: { limit: number }, command: Command) => {
      const { out, client } = contextOf(command);
      const api = await client();
      const runs = await listed(() =>
        take(api.workflows.runs(workflowId, { limit: pageSize(flags.limit) }), flags.limit),
      );
      out.result(runs, () => workflowRunsTable(runs));
    });

  const workflowRuns = program.command('workflow-runs').description('one workflow run: read it, retry it, cancel it');

  workflowRuns
    .command('get <workflowRunId>')
    .description('a workflow run and each task’s state: attempt, HTTP status, error, why it was skipped')
    .action(async (workflowRunId: string, _flags: unknown, command: Command) => {
      const { out, client } = contextOf(command);
      const run = dataOf(await (await client()).workflowRuns.get(workflowRunId));
      out.result(run, () => workflowRunView(run));
    });

  workflowRuns
    .command('retry <workflowRunId>')
    .description('run the failed tasks again, and what depends on them (succeeded tasks are not called again)')
    .action(async (workflowRunId: string, _flags: unknown, command: Command) => {
      const { out, client } = contextOf(command);
      const run = dataOf(await (await client()).workflowRuns.retry(workflowRunId));
      out.result(run, () => `Workflow run ${run.workflowRunId}: round ${run.round} started (${run.status})`);
    });

  workflowRuns
    .command('cancel <workflowRunId>')
    .description('tasks not started end CANCELLED; tasks in flight are asked to stop')
    .action(async (workflowRunId: string, _flags: unknown, command: Command) => {
      const { out, client } = contextOf(command);
      const run = dataOf(await (await client()).workflowRuns.cancel(workflowRunId));
      out.result(run, () => `Workflow run ${run.workflowRunId} is ${run.status}`);
    });
}
