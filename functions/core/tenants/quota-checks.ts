/**
 * The quota checks a request body can fail (400, naming the field): recurring schedules firing
 * more often than the tenant's minimum interval, and target payloads over its size limit.
 */
import type { FieldProblem } from '../errors.ts';
import type { Schedule, Target } from '../model.ts';
import { slotsBetween } from '../schedule/occurrences.ts';

/** Cron schedules are judged on this many consecutive occurrences from their start. */
export const CRON_SAMPLE = 200;

/** The shortest gap (s) between consecutive occurrences: exact for intervals, sampled for cron. */
export function shortestGapSeconds(schedule: Schedule): number | undefined {
  if (schedule.type === 'once') return undefined;
  if (schedule.type === 'interval') return schedule.everySeconds;
  const slots = slotsBetween(schedule, schedule.startAt, Number.POSITIVE_INFINITY, CRON_SAMPLE);
  let shortest: number | undefined;
  for (let i = 1; i < slots.length; i++) {
    const gap = ((slots[i] as number) - (slots[i - 1] as number)) / 1000;
    shortest = shortest === undefined ? gap : Math.min(shortest, gap);
  }
  return shortest;
}

/** Pushes a problem when the schedule fires more often than every `minIntervalSeconds`. */
export function checkMinInterval(schedule: Schedule, minIntervalSeconds: number, problems: FieldProblem[]): void {
  const gap = shortestGapSeconds(schedule);
  if (gap === undefined || gap >= minIntervalSeconds) return;
  problems.push({
    field: schedule.type === 'interval' ? 'schedule.everySeconds' : 'schedule.expression',
    reason: `fires every ${gap} s; this tenant's minimum interval is ${minIntervalSeconds} s`,
  });
}

/** Bytes of what is sent with every call: the body and every header, plain and secret (names and values). */
export function payloadBytes(target: Pick<Target, 'body' | 'headers'>, secretHeaders: Record<string, string> = {}) {
  const headerBytes = (headers: Record<string, string>) =>
    Object.entries(headers).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value), 0);
  const body = target.body === undefined ? 0 : Buffer.byteLength(target.body);
  return { body, total: body + headerBytes(target.headers) + headerBytes(secretHeaders) };
}

/** Pushes a problem when the target's body and headers exceed `maxPayloadBytes`. */
export function checkPayloadSize(
  target: Pick<Target, 'body' | 'headers'>,
  secretHeaders: Record<string, string> | undefined,
  maxPayloadBytes: number,
  problems: FieldProblem[],
): void {
  const size = payloadBytes(target, secretHeaders);
  if (size.total <= maxPayloadBytes) return;
  problems.push({
    field: size.body > maxPayloadBytes ? 'target.body' : 'target',
    reason: `body and headers are ${size.total} bytes; this tenant's limit is ${maxPayloadBytes}`,
  });
}
