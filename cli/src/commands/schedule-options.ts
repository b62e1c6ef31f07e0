/**
 * The schedule flags `jobs create`, `jobs edit` and `schedules preview` share, and the API schedule
 * object they make: `--cron <expr> [--tz <zone>]`, `--every <duration>` or `--at <instant>|now`,
 * with `--start-at`, `--end-at` and `--max-runs` for recurring ones. Whether a combination makes a
 * valid schedule beyond that is the API's to say (a 400 naming the field).
 */
import type { Command } from 'commander';
import type { CreateJob } from '../../../client/src/index.ts';
import { duration, integer } from '../arguments.ts';
import { UsageError } from '../cli-error.ts';

export type Schedule = CreateJob['schedule'];

export interface ScheduleFlags {
  cron?: string;
  tz?: string;
  every?: number;
  at?: string;
  startAt?: string;
  endAt?: string;
  maxRuns?: number;
}

export function addScheduleOptions(command: Command): Command {
  return command
    .option('--cron <expression>', 'a cron schedule: 5 fields (6 with seconds first), e.g. "0 9 * * 1-5"')
    .option('--tz <zone>', 'the IANA time zone of --cron (default UTC), e.g. Europe/Berlin')
    .option('--every <duration>', 'an interval: 90, 90s, 5m, 1h30m, 2d', duration)
    .option('--at <instant>', 'once, at a zoned ISO-8601 instant (or "now")')
    .option('--start-at <instant>', 'first occurrence of --every / earliest of --cron (zoned ISO-8601)')
    .option('--end-at <instant>', 'no occurrence after this instant')
    .option('--max-runs <n>', 'at most this many runs', integer);
}

/** The schedule the flags name; undefined when none is named (required: a usage error then). */
export function scheduleOf(flags: ScheduleFlags, required: boolean): Schedule | undefined {
  const kinds = [flags.cron !== undefined, flags.every !== undefined, flags.at !== undefined].filter(Boolean).length;
  if (kinds > 1) throw new UsageError('give one of --cron, --every and --at');
  const bounds = {
    ...(flags.startAt === undefined ? {} : { startAt: flags.startAt }),
    ...(flags.endAt === undefined ? {} : { endAt: flags.endAt }),
    ...(flags.maxRuns === undefined ? {} : { maxRuns: flags.maxRuns }),
  };
  if (flags.tz !== undefined && flags.cron === undefined) throw new UsageError('--tz goes with --cron');
  if (flags.cron !== undefined) {
    return {
      type: 'cron',
      expression: flags.cron,
      ...(flags.tz === undefined ? {} : { timezone: flags.tz }),
      ...bounds,
    };
  }
  if (flags.every !== undefined) return { type: 'interval', everySeconds: flags.every, ...bounds };
  if (flags.at !== undefined) {
    if (Object.keys(bounds).length > 0)
      throw new UsageError('--start-at, --end-at and --max-runs go with --cron or --every');
    return flags.at === 'now' ? { type: 'once' } : { type: 'once', at: flags.at };
  }
  if (Object.keys(bounds).length > 0)
    throw new UsageError('--start-at, --end-at and --max-runs need --cron or --every');
  if (required) throw new UsageError('a schedule is required: --cron, --every or --at');
  return undefined;
}
