/**
 * What the job form holds: text as typed (an input's value is a string), turned into a CreateJob
 * or UpdateJob by to-request.ts. Filled empty for a new job, or from a job for editing.
 */
import type { CreateJob, Job, Priority } from '@chronos/client';
import { browserZone, instantToWallTime } from './zones.ts';

export type Method = NonNullable<CreateJob['target']['method']>;
export type ScheduleType = CreateJob['schedule']['type'];
export type Misfire = NonNullable<CreateJob['misfire']>;
export type Overlap = NonNullable<CreateJob['overlap']>;
export type Delivery = NonNullable<CreateJob['delivery']>;

export const METHODS: readonly Method[] = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
export const MISFIRES: readonly Misfire[] = ['fire_once', 'fire_all', 'skip'];
export const OVERLAPS: readonly Overlap[] = ['allow', 'forbid'];
export const DELIVERIES: readonly Delivery[] = ['at-least-once', 'at-most-once'];

export const INTERVAL_UNITS = { seconds: 1, minutes: 60, hours: 3_600, days: 86_400 } as const;
export type IntervalUnit = keyof typeof INTERVAL_UNITS;

/** A header row; `stored`: a secret header the job already has, its value never shown (`***` until typed over). */
export interface HeaderRow {
  /** A stable React key (rows are added and removed). */
  key: number;
  name: string;
  value: string;
  stored: boolean;
}

export interface JobFormValues {
  name: string;
  url: string;
  method: Method;
  headers: HeaderRow[];
  secretHeaders: HeaderRow[];
  /** JSON text; empty sends no body. */
  body: string;
  scheduleType: ScheduleType;
  /** once: a wall-clock time in `timezone` (`datetime-local`); empty means now. */
  at: string;
  everyCount: string;
  everyUnit: IntervalUnit;
  expression: string;
  /** The zone of `at`, of the cron expression, and of `startAt`/`endAt`. */
  timezone: string;
  startAt: string;
  endAt: string;
  maxRuns: string;
  misfire: Misfire;
  overlap: Overlap;
  timeoutSeconds: string;
  slaSeconds: string;
  delivery: Delivery;
  retryMaxAttempts: string;
  retryInitialDelaySeconds: string;
  retryMaxDelaySeconds: string;
  retryMultiplier: string;
  /** Comma-separated 4xx statuses. */
  retryOn: string;
  onFailureUrl: string;
  /** The job's `async` field: the target answers 202 and reports back through callbacks. */
  asyncEnabled: boolean;
  /** Each empty: the API's default. */
  asyncHeartbeatTimeoutSeconds: string;
  asyncMaxDurationSeconds: string;
  asyncCancelGraceSeconds: string;
  /** The runs' lane (issue #22); `normal` is the API's default. */
  priority: Priority;
  /** Flow control: all three empty sends none; each as typed. */
  flowKey: string;
  flowRate: string;
  flowParallelism: string;
}

let nextRowKey = 1;
export const rowKey = () => nextRowKey++;

export function emptyValues(): JobFormValues {
  return {
    name: '',
    url: '',
    method: 'POST',
    headers: [],
    secretHeaders: [],
    body: '',
    scheduleType: 'once',
    at: '',
    everyCount: '',
    everyUnit: 'minutes',
    expression: '',
    timezone: browserZone(),
    startAt: '',
    endAt: '',
    maxRuns: '',
    misfire: 'fire_once',
    overlap: 'allow',
    timeoutSeconds: '',
    slaSeconds: '',
    delivery: 'at-least-once',
    retryMaxAttempts: '',
    retryInitialDelaySeconds: '',
    retryMaxDelaySeconds: '',
    retryMultiplier: '',
    retryOn: '',
    onFailureUrl: '',
    asyncEnabled: false,
    asyncHeartbeatTimeoutSeconds: '',
    asyncMaxDurationSeconds: '',
    asyncCancelGraceSeconds: '',
    priority: 'normal',
    flowKey: '',
    flowRate: '',
    flowParallelism: '',
  };
}

/** The largest unit that divides the interval evenly: 300 s shows as 5 minutes. */
function intervalParts(everySeconds: number | undefined): Pick<JobFormValues, 'everyCount' | 'everyUnit'> {
  if (!everySeconds) return { everyCount: '', everyUnit: 'minutes' };
  const units = Object.entries(INTERVAL_UNITS).reverse() as [IntervalUnit, number][];
  const [unit, size] = units.find(([, seconds]) => everySeconds % seconds === 0) ?? ['seconds', 1];
  return { everyCount: String(everySeconds / size), everyUnit: unit };
}

/** A JSON body pretty-printed for editing; any other text as it is. */
function bodyText(body: string | undefined): string {
  if (body === undefined) return '';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** The form filled from a job: times in the schedule's zone (cron) or the browser's. */
export function valuesFromJob(job: Job): JobFormValues {
  const { schedule, target } = job;
  const timezone = schedule.type === 'cron' ? (schedule.timezone ?? 'UTC') : browserZone();
  const wall = (iso: string | null | undefined) => (iso ? instantToWallTime(iso, timezone) : '');
  return {
    ...emptyValues(),
    name: job.name ?? '',
    url: target.url,
    method: target.method,
    headers: Object.entries(target.headers).map(([name, value]) => ({ key: rowKey(), name, value, stored: false })),
    secretHeaders: Object.keys(target.secretHeaders ?? {}).map((name) => ({
      key: rowKey(),
      name,
      value: '',
      stored: true,
    })),
    body: bodyText(target.body),
    scheduleType: schedule.type,
    at: wall(schedule.at),
    ...intervalParts(schedule.everySeconds),
    expression: schedule.expression ?? '',
    timezone,
    startAt: wall(schedule.startAt),
    endAt: wall(schedule.endAt),
    maxRuns: schedule.maxRuns === undefined ? '' : String(schedule.maxRuns),
    misfire: job.misfire,
    overlap: job.overlap,
    timeoutSeconds: String(job.timeoutSeconds),
    slaSeconds: String(job.slaSeconds),
    delivery: job.delivery,
    retryMaxAttempts: String(job.retry.maxAttempts),
    retryInitialDelaySeconds: String(job.retry.initialDelaySeconds),
    retryMaxDelaySeconds: String(job.retry.maxDelaySeconds),
    retryMultiplier: String(job.retry.multiplier),
    retryOn: (job.retry.retryOn ?? []).join(', '),
    onFailureUrl: job.onFailure?.url ?? '',
    asyncEnabled: job.async !== null,
    asyncHeartbeatTimeoutSeconds: job.async ? String(job.async.heartbeatTimeoutSeconds) : '',
    asyncMaxDurationSeconds: job.async ? String(job.async.maxDurationSeconds) : '',
    asyncCancelGraceSeconds: job.async ? String(job.async.cancelGraceSeconds) : '',
    priority: job.priority ?? 'normal',
    flowKey: job.flowControl?.key ?? '',
    flowRate: job.flowControl?.ratePerSecond === undefined ? '' : String(job.flowControl.ratePerSecond),
    flowParallelism: job.flowControl?.parallelism === undefined ? '' : String(job.flowControl.parallelism),
  };
}
