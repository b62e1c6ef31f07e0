/**
 * A schedule in words, as the jobs list shows it: `every 5 minutes`, `once at <time>`, or a cron
 * expression in words (cronstrue) with the schedule's own zone beside it and the expression below.
 */
import type { Job } from '@chronos/client';
import cronstrue from 'cronstrue';
import { Time } from './Time.tsx';

type Schedule = Job['schedule'];

const UNITS: ReadonlyArray<readonly [seconds: number, name: string]> = [
  [86_400, 'day'],
  [3_600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** `every 5 minutes`, `every hour`, `every 90 seconds`: the largest unit that divides it evenly. */
export function intervalInWords(everySeconds: number): string {
  const [size, name] = UNITS.find(([seconds]) => everySeconds % seconds === 0) ?? [1, 'second'];
  const count = everySeconds / size;
  return count === 1 ? `every ${name}` : `every ${count} ${name}s`;
}

/** cronstrue's words for an expression (24-hour clock), or undefined when it cannot read it. */
export function cronInWords(expression: string): string | undefined {
  try {
    return cronstrue.toString(expression, { use24HourTimeFormat: true, throwExceptionOnParseError: true });
  } catch {
    return undefined;
  }
}

function Limits({ schedule }: { schedule: Schedule }) {
  if (!schedule.endAt && !schedule.maxRuns) return null;
  return (
    <>
      {schedule.endAt && (
        <>
          , until <Time iso={schedule.endAt} />
        </>
      )}
      {schedule.maxRuns !== undefined && `, at most ${schedule.maxRuns} runs`}
    </>
  );
}

export function ScheduleText({ schedule }: { schedule: Schedule }) {
  if (schedule.type === 'once') {
    return schedule.at ? (
      <span>
        once at <Time iso={schedule.at} />
      </span>
    ) : (
      <span>once</span>
    );
  }
  if (schedule.type === 'interval') {
    return (
      <span>
        {schedule.everySeconds ? intervalInWords(schedule.everySeconds) : 'interval'}
        <Limits schedule={schedule} />
      </span>
    );
  }
  const expression = schedule.expression ?? '';
  const words = cronInWords(expression);
  return (
    <span>
      <span>
        {words ?? 'cron'} <span className="text-slate-600">({schedule.timezone ?? 'UTC'})</span>
        <Limits schedule={schedule} />
      </span>
      <code className="block text-xs text-slate-600">{expression}</code>
    </span>
  );
}
