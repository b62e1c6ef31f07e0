/** Human renderings of the API's jobs, runs and stats: aligned tables, times in the local zone. */
import type { FlowControlSettings, FlowControlState, Job, MonitoringStats, Run } from '../../client/src/index.ts';
import { durationText } from './arguments.ts';
import { formatFields, formatTable } from './table.ts';
import { localTime, shortDuration } from './time.ts';

/** `cron "0 9 * * 1-5" Europe/Berlin`, `every 5m`, `once 2026-11-24 16:08:31 CET`. */
export function scheduleText(schedule: Job['schedule']): string {
  switch (schedule.type) {
    case 'cron':
      return `cron "${schedule.expression}" ${schedule.timezone ?? 'UTC'}`;
    case 'interval':
      return `every ${durationText(schedule.everySeconds ?? 0)}`;
    default:
      return `once ${localTime(schedule.at)}`;
  }
}

export function jobsTable(jobs: readonly Job[]): string {
  if (jobs.length === 0) return 'No jobs.';
  return formatTable(
    ['ID', 'NAME', 'STATUS', 'SCHEDULE', 'NEXT', 'LAST RUN'],
    jobs.map((job) => [
      job.jobId,
      job.name,
      job.status,
      scheduleText(job.schedule),
      localTime(job.nextFireAt),
      job.latestRun ? `${job.latestRun.status}${job.latestRun.httpStatus ? ` ${job.latestRun.httpStatus}` : ''}` : '-',
    ]),
  );
}

export function jobView(job: Job): string {
  const fields: [string, string | number | undefined][] = [
    ['ID', job.jobId],
    ['Name', job.name],
    ['Status', job.status + (job.quarantine ? ` (quarantined: ${job.quarantine.reason})` : '')],
    ['Target', `${job.target.method} ${job.target.url}`],
    ['Schedule', scheduleText(job.schedule)],
    ['Next', localTime(job.nextFireAt)],
    ['Misfire', job.misfire],
    ['Overlap', job.overlap],
    ['Timeout', `${job.timeoutSeconds} s`],
    ['Priority', job.priority ?? 'normal'],
    ['Flow control', flowControlText(job.flowControl)],
    [
      'Async',
      job.async
        ? `heartbeat ${job.async.heartbeatTimeoutSeconds} s, at most ${job.async.maxDurationSeconds} s, cancel grace ${job.async.cancelGraceSeconds} s`
        : undefined,
    ],
    ['Version', job.version],
    ['Created', localTime(job.createdAt)],
    [
      'Latest run',
      job.latestRun
        ? `${job.latestRun.status} ${job.latestRun.httpStatus ?? ''} (${localTime(job.latestRun.scheduledFor)})`
        : '-',
    ],
  ];
  const upcoming = (job.upcoming ?? []).map((at, i) => [i === 0 ? 'Upcoming' : '', localTime(at)] as [string, string]);
  return formatFields([...fields, ...upcoming]);
}

/** One run (`runs get`): its timings, its outcome, and an async run's progress and checkpoint. */
export function runView(run: Run & { checkpoint?: unknown }): string {
  const json = (value: unknown) => (value === null || value === undefined ? undefined : JSON.stringify(value));
  return formatFields([
    ['Run', run.runId],
    ['Job', run.jobId],
    ['Attempt', run.attempt],
    ['Status', run.status + (run.errorType ? ` (${run.errorType}${run.error ? `: ${run.error}` : ''})` : '')],
    ['Priority', run.priority ?? 'normal'],
    ['Flow control', flowControlText(run.flowControl)],
    ['Scheduled', localTime(run.scheduledFor)],
    ['Waited', waitedText(run)],
    ['Started', localTime(run.startedAt)],
    ['Completed', localTime(run.completedAt)],
    ['HTTP', run.httpStatus ?? undefined],
    [
      'Progress',
      run.progress === null ? undefined : `${run.progress} %${run.progressMessage ? ` ${run.progressMessage}` : ''}`,
    ],
    ['Heartbeat due', run.status === 'RUNNING' ? localTime(run.heartbeatDeadline) : undefined],
    ['Cancel asked', run.cancelRequestedAt ? localTime(run.cancelRequestedAt) : undefined],
    ['Checkpoint', json(run.checkpoint)],
    ['Output', json(run.output)],
  ]);
}

/** `key stripe: 10/s, 2 in flight at most` — a job's or run's flow control in words. */
export function flowControlText(flow: FlowControlSettings | null | undefined): string | undefined {
  if (!flow) return undefined;
  const limits = [
    flow.ratePerSecond === undefined ? undefined : `${flow.ratePerSecond}/s`,
    flow.parallelism === undefined ? undefined : `${flow.parallelism} in flight at most`,
  ].filter(Boolean);
  return `key ${flow.key}: ${limits.join(', ')}`;
}

/** `flow-control get`: a key's limits and its runs now. */
export function flowControlView(state: FlowControlState): string {
  return formatFields([
    ['Key', state.key],
    ['Rate', state.ratePerSecond === undefined ? 'no limit' : `${state.ratePerSecond} calls started per second`],
    ['Parallelism', state.parallelism === undefined ? 'no limit' : `${state.parallelism} calls in flight at most`],
    ['In flight', state.inFlight],
    ['Waiting', state.waiting],
    ['Limits written', localTime(state.updatedAt)],
  ]);
}

/** `3.2 s for key stripe`: how long the run waited for its key's limits before its call. */
export function waitedText(run: Run): string | undefined {
  if (run.waitedMs === undefined) return undefined;
  return `${shortDuration(run.waitedMs)}${run.flowControl ? ` for key ${run.flowControl.key}` : ''}`;
}

export function runsTable(runs: readonly Run[]): string {
  if (runs.length === 0) return 'No runs.';
  return formatTable(
    ['RUN', 'SCHEDULED', 'ATTEMPT', 'STATUS', 'HTTP', 'START LAG', 'DURATION', 'ERROR'],
    runs.map((run) => [
      run.runId,
      localTime(run.scheduledFor),
      run.attempt,
      run.status,
      run.httpStatus,
      shortDuration(run.startLagMs),
      shortDuration(run.durationMs),
      run.errorType ? `${run.errorType}${run.error ? `: ${run.error}` : ''}` : '',
    ]),
  );
}

const percent = (rate: number | null) => (rate === null ? '-' : `${(rate * 100).toFixed(1)} %`);

export function statsView(stats: MonitoringStats): string {
  const jobs = Object.entries(stats.jobs.byStatus).map(([status, n]) => `${status} ${n}`);
  const runs = Object.entries(stats.runs.byStatus).map(([status, n]) => `${status} ${n}`);
  const latency = (l: MonitoringStats['startLagMs']) =>
    `p50 ${l.p50 ?? '-'} ms  p95 ${l.p95 ?? '-'} ms  p99 ${l.p99 ?? '-'} ms`;
  return formatFields([
    ['Scope', stats.scope],
    ['Window', `${stats.window} (${localTime(stats.from)} – ${localTime(stats.to)})`],
    ['Jobs', jobs.join('  ') || '-'],
    ['Runs', `${stats.runs.total} total: ${runs.join('  ')}`],
    ['Success rate', percent(stats.runs.successRate)],
    ['Error rate', percent(stats.runs.errorRate)],
    ['Retried', stats.runs.retried],
    ['SLA missed', stats.runs.slaMissed],
    ['Dead letters', stats.runs.deadLetters],
    ['Due, not started', stats.runs.dueNotStarted],
    ['Start lag', latency(stats.startLagMs)],
    ['Duration', latency(stats.durationMs)],
  ]);
}
