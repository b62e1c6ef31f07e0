/**
 * The flags of `jobs create` and `jobs edit` for issue #22: `--priority high|normal|low` (the
 * run's lane) and `--flow-key K --flow-rate R --flow-parallelism P` (the limits every run of the
 * tenant naming K shares). Values out of the contract's bounds are usage errors naming the flag,
 * before any call.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { FLOW_CONTROL_BOUNDS, type FlowControlSettings, PRIORITIES, type Priority } from '../../../client/src/index.ts';
import { decimal, integer } from '../arguments.ts';
import { UsageError } from '../cli-error.ts';

export interface LaneFlags {
  priority?: Priority;
  flowKey?: string;
  flowRate?: number;
  flowParallelism?: number;
  /** `jobs edit --remove-flow-control`: the job's runs no longer share a key's limits. */
  removeFlowControl?: boolean;
}

export const LANE_FLAGS = ['priority', 'flowKey', 'flowRate', 'flowParallelism', 'removeFlowControl'] as const;

const { keyLength, ratePerSecond, parallelism } = FLOW_CONTROL_BOUNDS;

function flowKey(value: string): string {
  const length = [...value].length;
  if (length < keyLength.min || length > keyLength.max)
    throw new InvalidArgumentError(`must be ${keyLength.min} to ${keyLength.max} characters`);
  return value;
}

function flowRate(value: string): number {
  const rate = decimal(value);
  if (rate < ratePerSecond.min || rate > ratePerSecond.max)
    throw new InvalidArgumentError(`must be from ${ratePerSecond.min} to ${ratePerSecond.max} calls per second`);
  return rate;
}

function flowParallelism(value: string): number {
  const slots = integer(value);
  if (slots < parallelism.min || slots > parallelism.max)
    throw new InvalidArgumentError(`must be a whole number from ${parallelism.min} to ${parallelism.max}`);
  return slots;
}

export function addLaneOptions(command: Command, create: boolean): Command {
  command
    .addOption(
      new Option('--priority <lane>', `the runs' lane${create ? ' (default normal)' : ''}`).choices([...PRIORITIES]),
    )
    .option('--flow-key <key>', 'flow control: runs naming this key share its limits (1-128 characters)', flowKey)
    .option(
      '--flow-rate <perSecond>',
      'flow control: at most this many calls started per second (0.01-10000)',
      flowRate,
    )
    .option('--flow-parallelism <n>', 'flow control: at most this many calls in flight (1-10000)', flowParallelism);
  if (!create) command.option('--remove-flow-control', "the job's runs no longer wait for a key's limits");
  return command;
}

const limitsOf = (flags: LaneFlags) => ({
  ...(flags.flowRate === undefined ? {} : { ratePerSecond: flags.flowRate }),
  ...(flags.flowParallelism === undefined ? {} : { parallelism: flags.flowParallelism }),
});

const anyFlowFlag = (flags: LaneFlags) =>
  [flags.flowKey, flags.flowRate, flags.flowParallelism].some((flag) => flag !== undefined);

/** `priority` and `flowControl` of POST /v1/jobs: a key needs a limit, a limit needs a key. */
export function createLaneFields(flags: LaneFlags): { priority?: Priority; flowControl?: FlowControlSettings } {
  const priority = flags.priority === undefined ? {} : { priority: flags.priority };
  if (!anyFlowFlag(flags)) return priority;
  if (flags.flowKey === undefined) throw new UsageError('--flow-rate and --flow-parallelism need --flow-key');
  const limits = limitsOf(flags);
  if (Object.keys(limits).length === 0)
    throw new UsageError('--flow-key needs a limit: --flow-rate, --flow-parallelism or both');
  return { ...priority, flowControl: { key: flags.flowKey, ...limits } };
}

/**
 * `priority` and `flowControl` of PATCH /v1/jobs/{id}. Flow flags apply over the job's current
 * flow control (`--flow-rate 5` keeps its key and parallelism), since the API replaces it whole.
 */
export function updateLaneFields(
  flags: LaneFlags,
  current: FlowControlSettings | null | undefined,
): { priority?: Priority; flowControl?: FlowControlSettings | null } {
  const priority = flags.priority === undefined ? {} : { priority: flags.priority };
  if (flags.removeFlowControl) {
    if (anyFlowFlag(flags)) throw new UsageError('--remove-flow-control cannot be given with --flow-* options');
    return { ...priority, flowControl: null };
  }
  if (!anyFlowFlag(flags)) return priority;
  const key = flags.flowKey ?? current?.key;
  if (key === undefined)
    throw new UsageError('the job has no flow control yet: give --flow-key with --flow-rate or --flow-parallelism');
  const base =
    flags.flowKey !== undefined && flags.flowKey !== current?.key
      ? {}
      : limitsOf({
          flowRate: current?.ratePerSecond,
          flowParallelism: current?.parallelism,
        });
  const limits = { ...base, ...limitsOf(flags) };
  if (Object.keys(limits).length === 0)
    throw new UsageError('--flow-key needs a limit: --flow-rate, --flow-parallelism or both');
  return { ...priority, flowControl: { key, ...limits } };
}
