/** `chronos jobs create|list|get|edit|pause|resume|trigger|cancel|runs`. */
import type { Command } from 'commander';
import { ChronosError, type Job, type Run } from '../../../client/src/index.ts';
import { integer } from '../arguments.ts';
import { dataOf } from '../output.ts';
import { localTime } from '../time.ts';
import { jobsTable, jobView, runsTable } from '../views.ts';
import { type CommandContext, contextOf } from './context.ts';
import { addJobOptions, createBodyOf, type JobFlags, requireSomeChange, updateBodyOf } from './job-options.ts';

/** Up to `limit` items of a listing, page after page. */
export async function take<T>(items: AsyncIterable<T>, limit: number): Promise<T[]> {
  const out: T[] = [];
  if (limit <= 0) return out;
  for await (const item of items) {
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}

/** The listings' page size: small for a few items, the API's largest otherwise. */
export const pageSize = (limit: number) => Math.min(100, Math.max(1, limit));

export function registerJobs(program: Command): void {
  const jobs = program.command('jobs').description('create, list, change and follow jobs');

  addJobOptions(jobs.command('create').description('create a job'), true).action(
    async (flags: JobFlags & { idempotencyKey?: string }, command: Command) => {
      const { out, client } = contextOf(command);
      const body = createBodyOf(flags);
      const api = await client();
      const job = dataOf(
        await api.jobs.create(body, flags.idempotencyKey ? { idempotencyKey: flags.idempotencyKey } : {}),
      );
      out.result(job, () => `Created job ${job.jobId} (${job.status}, next ${localTime(job.nextFireAt)})`);
    },
  );

  jobs
    .command('list')
    .description('list your jobs, oldest first')
    .option('--status <status>', 'ACTIVE, PAUSED, COMPLETED, FAILED or CANCELLED')
    .option('--type <type>', 'once, interval or cron')
    .option('--name <prefix>', 'names starting with this')
    .option('--limit <n>', 'at most this many jobs (default 100)', integer, 100)
    .action(async (flags: { status?: string; type?: string; name?: string; limit: number }, command: Command) => {
      const { out, client } = contextOf(command);
      const api = await client();
      const query = {
        limit: pageSize(flags.limit),
        ...(flags.status ? { status: flags.status } : {}),
        ...(flags.type ? { type: flags.type } : {}),
        ...(flags.name ? { name: flags.name } : {}),
      } as Parameters<typeof api.jobs.list>[0];
      const items = await listed(() => take(api.jobs.list(query), flags.limit));
      out.result(items, () => jobsTable(items));
    });

  jobs
    .command('get <jobId>')
    .description('a job, its next occurrences and its latest run')
    .action(async (jobId: string, _flags: unknown, command: Command) => {
      const { out, client } = contextOf(command);
      const job = dataOf(await (await client()).jobs.get(jobId));
      out.result(job, () => jobView(job));
    });

  addJobOptions(
    jobs.command('edit <jobId>').description("change a job's fields (a new schedule applies from now on)"),
    false,
  ).action(async (jobId: string, flags: JobFlags, command: Command) => {
    const { out, client } = contextOf(command);
    requireSomeChange(flags);
    const api = await client();
    const current = dataOf(await api.jobs.get(jobId));
    const job = dataOf(await api.jobs.update(jobId, updateBodyOf(flags, current), current.version));
    out.result(job, () => `Changed job ${job.jobId} (version ${job.version}, next ${localTime(job.nextFireAt)})`);
  });

  const transition = (name: 'pause' | 'resume' | 'cancel', description: string) =>
    jobs
      .command(`${name} <jobId>`)
      .description(description)
      .action(async (jobId: string, _flags: unknown, command: Command) => {
        const { out, client } = contextOf(command);
        const job: Job = dataOf(await (await client()).jobs[name](jobId));
        out.result(job, () => `Job ${job.jobId} is ${job.status}`);
      });
  transition('pause', 'stop calling until resumed');
  transition('resume', "call again (missed occurrences per the job's misfire policy)");
  transition('cancel', 'end the job for good (kept as history)');

  jobs
    .command('trigger <jobId>')
    .description('one extra run, now')
    .option('--idempotency-key <key>', 'a retried trigger with the same key makes no second run')
    .action(async (jobId: string, flags: { idempotencyKey?: string }, command: Command) => {
      const { out, client } = contextOf(command);
      const api = await client();
      const run = dataOf(
        await api.jobs.trigger(jobId, flags.idempotencyKey ? { idempotencyKey: flags.idempotencyKey } : {}),
      );
      out.result(run, () => `Triggered run ${run.runId} (${run.status})`);
    });

  jobs
    .command('runs <jobId>')
    .description("a job's runs, newest first")
    .option('--status <status>', 'only runs in this status')
    .option('--limit <n>', 'at most this many runs (default 20)', integer, 20)
    .action(async (jobId: string, flags: { status?: string; limit: number }, command: Command) => {
      const { out, client } = contextOf(command);
      const runs = await recentRuns({ client }, jobId, flags);
      out.result(runs, () => runsTable(runs));
    });
}

/** The job's newest runs (`jobs runs`, `watch`). */
export async function recentRuns(
  { client }: Pick<CommandContext, 'client'>,
  jobId: string,
  flags: { status?: string; limit: number },
): Promise<Run[]> {
  const api = await client();
  const query = {
    limit: pageSize(flags.limit),
    ...(flags.status ? { status: flags.status } : {}),
  } as Parameters<typeof api.jobs.runs>[1];
  return listed(() => take(api.jobs.runs(jobId, query), flags.limit));
}

/** A listing whose page failed throws ChronosError: the same CliError as any failed call. */
export async function listed<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ChronosError) return dataOf<T>({ error: error.error });
    throw error;
  }
}
