/**
 * The flags of `jobs create` and `jobs edit` and the request bodies they make. `--body @file.json`
 * reads the file; a body that parses as JSON is sent as JSON (Chronos serializes it and sets
 * content-type), anything else as the text it is.
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { CreateJob, Job, UpdateJob } from '../../../client/src/index.ts';
import { decimal, header, integer, integers } from '../arguments.ts';
import { UsageError } from '../cli-error.ts';
import { addLaneOptions, createLaneFields, LANE_FLAGS, type LaneFlags, updateLaneFields } from './lane-options.ts';
import { addScheduleOptions, type ScheduleFlags, scheduleOf } from './schedule-options.ts';

export interface JobFlags extends ScheduleFlags, LaneFlags {
  name?: string;
  url?: string;
  method?: string;
  header?: Record<string, string>;
  secretHeader?: Record<string, string>;
  body?: { value: unknown };
  misfire?: string;
  overlap?: string;
  timeout?: number;
  sla?: number;
  retryAttempts?: number;
  retryInitialDelay?: number;
  retryMaxDelay?: number;
  retryMultiplier?: number;
  retryOn?: number[];
  delivery?: string;
  onFailure?: string;
  async?: boolean;
  heartbeatTimeout?: number;
  maxDuration?: number;
  cancelGrace?: number;
  /** `jobs edit --sync`: the job's calls are synchronous again. */
  sync?: boolean;
}

/** `--body` as given: `@path` reads a file; JSON text becomes its value, other text stays text. */
export function bodyArgument(value: string): { value: unknown } {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new InvalidArgumentError(`cannot read ${value.slice(1)}: ${(error as Error).message}`);
    }
  }
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { value: text };
  }
}

export function addJobOptions(command: Command, create: boolean): Command {
  addScheduleOptions(command)
    .option('--name <name>', 'a name to find the job by')
    .option('--url <url>', create ? 'the URL Chronos calls (required)' : 'a new URL to call')
    .addOption(
      new Option('--method <method>', 'HTTP method (default POST)').choices([
        'GET',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
        'HEAD',
      ]),
    )
    .option('--header <name:value>', 'a header sent with each call (repeatable)', header)
    .option('--secret-header <name:value>', 'a header kept sealed, never shown again (repeatable)', header)
    .option('--body <json|text|@file>', 'the body sent with each call', bodyArgument)
    .addOption(new Option('--misfire <policy>', 'missed occurrences').choices(['fire_once', 'fire_all', 'skip']))
    .addOption(new Option('--overlap <policy>', 'a run while the last one is running').choices(['allow', 'forbid']))
    .option('--timeout <seconds>', "the call's timeout, 1-300 (default 30)", integer)
    .option('--sla <seconds>', 'the start lag a run may have (default 5)', integer)
    .option('--async', 'the target takes calls with 202 and reports back through Chronos-Callback-Url')
    .option(
      '--heartbeat-timeout <seconds>',
      'async: a silent worker is trusted this long, 5-3600 (default 60)',
      integer,
    )
    .option('--max-duration <seconds>', 'async: an attempt lives at most this long (default 3600)', integer)
    .option(
      '--cancel-grace <seconds>',
      'async: a cancelled worker may still complete for this long (default 30)',
      integer,
    );
  if (!create) command.option('--sync', 'calls are synchronous again (no longer async)');
  addLaneOptions(command, create);
  if (create) {
    command
      .option('--retry-attempts <n>', 'attempts per occurrence, 1-20 (default 3)', integer)
      .option('--retry-initial-delay <seconds>', 'first retry delay (default 1)', integer)
      .option('--retry-max-delay <seconds>', 'longest retry delay (default 300)', integer)
      .option('--retry-multiplier <x>', 'backoff multiplier (default 2)', decimal)
      .option('--retry-on <statuses>', '4xx statuses to retry, e.g. 404,409', integers)
      .addOption(new Option('--delivery <mode>', 'delivery guarantee').choices(['at-least-once', 'at-most-once']))
      .option('--on-failure <url>', 'called when an occurrence fails for good')
      .option('--idempotency-key <key>', 'makes a retried create safe: the same key answers the same job');
  }
  return command;
}

function targetOf(flags: JobFlags, url: string, base?: Job['target']): CreateJob['target'] {
  const body = flags.body === undefined ? base?.body : flags.body.value;
  const method = (flags.method ?? base?.method) as CreateJob['target']['method'];
  const headers = flags.header ?? base?.headers;
  return {
    url,
    ...(method === undefined ? {} : { method }),
    ...(headers === undefined ? {} : { headers }),
    ...(flags.secretHeader === undefined ? {} : { secretHeaders: flags.secretHeader }),
    ...(body === undefined ? {} : { body }),
  };
}

const common = (flags: JobFlags) => ({
  ...(flags.name === undefined ? {} : { name: flags.name }),
  ...(flags.misfire === undefined ? {} : { misfire: flags.misfire as CreateJob['misfire'] }),
  ...(flags.overlap === undefined ? {} : { overlap: flags.overlap as CreateJob['overlap'] }),
  ...(flags.timeout === undefined ? {} : { timeoutSeconds: flags.timeout }),
  ...(flags.sla === undefined ? {} : { slaSeconds: flags.sla }),
});

/**
 * The `async` settings the flags give (over `base`, a job's current ones, for an edit), or
 * undefined when no async flag is given. Any async setting makes the job async.
 */
function asyncOf(flags: JobFlags, base?: AsyncSettings): AsyncSettings | undefined {
  const given = [flags.async, flags.heartbeatTimeout, flags.maxDuration, flags.cancelGrace].some(
    (f) => f !== undefined,
  );
  if (!given) return undefined;
  return {
    ...base,
    ...(flags.heartbeatTimeout === undefined ? {} : { heartbeatTimeoutSeconds: flags.heartbeatTimeout }),
    ...(flags.maxDuration === undefined ? {} : { maxDurationSeconds: flags.maxDuration }),
    ...(flags.cancelGrace === undefined ? {} : { cancelGraceSeconds: flags.cancelGrace }),
  };
}

type AsyncSettings = NonNullable<CreateJob['async']>;

/** The body of POST /v1/jobs. */
export function createBodyOf(flags: JobFlags): CreateJob {
  if (flags.url === undefined) throw new UsageError('--url is required');
  const schedule = scheduleOf(flags, true) as CreateJob['schedule'];
  const retry = {
    ...(flags.retryAttempts === undefined ? {} : { maxAttempts: flags.retryAttempts }),
    ...(flags.retryInitialDelay === undefined ? {} : { initialDelaySeconds: flags.retryInitialDelay }),
    ...(flags.retryMaxDelay === undefined ? {} : { maxDelaySeconds: flags.retryMaxDelay }),
    ...(flags.retryMultiplier === undefined ? {} : { multiplier: flags.retryMultiplier }),
    ...(flags.retryOn === undefined ? {} : { retryOn: flags.retryOn }),
  };
  return {
    target: targetOf(flags, flags.url),
    schedule,
    ...common(flags),
    ...(Object.keys(retry).length === 0 ? {} : { retry }),
    ...(flags.delivery === undefined ? {} : { delivery: flags.delivery as CreateJob['delivery'] }),
    ...(flags.onFailure === undefined ? {} : { onFailure: { url: flags.onFailure } }),
    ...(asyncOf(flags) === undefined ? {} : { async: asyncOf(flags) }),
    ...createLaneFields(flags),
  };
}

const CHANGE_FLAGS = [
  'name',
  'url',
  'method',
  'header',
  'secretHeader',
  'body',
  'misfire',
  'overlap',
  'timeout',
  'sla',
  'cron',
  'every',
  'at',
  'tz',
  'startAt',
  'endAt',
  'maxRuns',
  'async',
  'heartbeatTimeout',
  'maxDuration',
  'cancelGrace',
  'sync',
  ...LANE_FLAGS,
] as const;

/** A usage error (before any call) when the flags change nothing. */
export function requireSomeChange(flags: JobFlags): void {
  if (!CHANGE_FLAGS.some((flag) => flags[flag] !== undefined)) {
    throw new UsageError('nothing to change: give at least one option');
  }
}

/**
 * The body of PATCH /v1/jobs/{id}: only what the flags change. The API replaces a target whole, so
 * target flags are applied over the job's current target; its secret headers cannot be read back,
 * so changing the target of a job that has some needs them given again.
 */
export function updateBodyOf(flags: JobFlags, current: Job): UpdateJob {
  const schedule = scheduleOf(flags, false);
  const targetChanged = [flags.url, flags.method, flags.header, flags.secretHeader, flags.body].some(
    (f) => f !== undefined,
  );
  const sealed = Object.keys(current.target.secretHeaders ?? {}).length > 0;
  if (targetChanged && sealed && flags.secretHeader === undefined) {
    throw new UsageError(
      'the job has secret headers: a new target replaces them, so give them again with --secret-header',
    );
  }
  if (flags.sync && asyncOf(flags) !== undefined) throw new UsageError('--sync cannot be given with async options');
  const currentAsync = (current as { async?: AsyncSettings | null }).async ?? undefined;
  const asyncSettings = asyncOf(flags, currentAsync);
  const body: UpdateJob = {
    ...common(flags),
    ...(flags.sync ? { async: null } : {}),
    ...(asyncSettings === undefined ? {} : { async: asyncSettings }),
    ...(schedule === undefined ? {} : { schedule: schedule as UpdateJob['schedule'] }),
    ...(targetChanged ? { target: targetOf(flags, flags.url ?? current.target.url, current.target) } : {}),
    ...updateLaneFields(flags, current.flowControl),
  };
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one option');
  return body;
}
