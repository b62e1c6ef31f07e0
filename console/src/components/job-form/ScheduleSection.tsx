/**
 * When the job fires: once at a date-time in a zone, every N units, or a cron expression in a zone
 * (with its reading in words), recurring ones optionally bounded; below, the server's preview.
 */
import { useMemo } from 'react';
import { cronInWords } from '../ScheduleText.tsx';
import { Section, SelectField, TextField } from './inputs.tsx';
import type { FormChange } from './JobForm.tsx';
import { INTERVAL_UNITS, type IntervalUnit, type JobFormValues, type ScheduleType } from './values.ts';
import { timeZones } from './zones.ts';

const TYPES: { value: ScheduleType; label: string }[] = [
  { value: 'once', label: 'Once' },
  { value: 'interval', label: 'Every interval' },
  { value: 'cron', label: 'Cron' },
];

function TimeZoneField({ values, change, label }: { values: JobFormValues; change: FormChange; label: string }) {
  const zones = useMemo(timeZones, []);
  return (
    <SelectField
      field="schedule.timezone"
      label={label}
      value={values.timezone}
      options={zones}
      onChange={(timezone) => change({ timezone }, 'schedule.timezone')}
    />
  );
}

function Limits({ values, change }: { values: JobFormValues; change: FormChange }) {
  const zoneHint = `In ${values.timezone}; empty: now`;
  return (
    <div className="mt-3 grid gap-3 sm:grid-cols-3">
      <TextField
        field="schedule.startAt"
        label="Start (optional)"
        type="datetime-local"
        value={values.startAt}
        hint={zoneHint}
        onChange={(startAt) => change({ startAt }, 'schedule.startAt')}
      />
      <TextField
        field="schedule.endAt"
        label="End (optional)"
        type="datetime-local"
        value={values.endAt}
        hint={`In ${values.timezone}; empty: no end`}
        onChange={(endAt) => change({ endAt }, 'schedule.endAt')}
      />
      <TextField
        field="schedule.maxRuns"
        label="Most runs (optional)"
        type="number"
        value={values.maxRuns}
        hint="Completes after this many occurrences"
        onChange={(maxRuns) => change({ maxRuns }, 'schedule.maxRuns')}
      />
    </div>
  );
}

export function ScheduleSection({ values, change }: { values: JobFormValues; change: FormChange }) {
  const words = values.scheduleType === 'cron' && values.expression.trim() ? cronInWords(values.expression) : undefined;
  return (
    <Section title="Schedule">
      <fieldset>
        <legend className="text-sm font-medium">Type</legend>
        <div className="mt-1 flex flex-wrap gap-4">
          {TYPES.map((type) => (
            <label key={type.value} className="flex items-center gap-1.5 text-sm">
              <input
                type="radio"
                name="schedule-type"
                value={type.value}
                checked={values.scheduleType === type.value}
                onChange={() => change({ scheduleType: type.value }, 'schedule.type')}
              />
              {type.label}
            </label>
          ))}
        </div>
      </fieldset>

      {values.scheduleType === 'once' && (
        <div className="mt-3 grid gap-3 sm:grid-cols-2">
          <TextField
            field="schedule.at"
            label="Date and time"
            type="datetime-local"
            value={values.at}
            hint="In the time zone beside it; empty: as soon as possible"
            onChange={(at) => change({ at }, 'schedule.at')}
          />
          <TimeZoneField values={values} change={change} label="Time zone" />
        </div>
      )}

      {values.scheduleType === 'interval' && (
        <>
          <div className="mt-3 grid gap-3 sm:grid-cols-[10rem_10rem]">
            <TextField
              field="schedule.everySeconds"
              label="Every"
              type="number"
              value={values.everyCount}
              onChange={(everyCount) => change({ everyCount }, 'schedule.everySeconds')}
            />
            <SelectField
              field="everyUnit"
              label="Unit"
              value={values.everyUnit}
              options={Object.keys(INTERVAL_UNITS) as IntervalUnit[]}
              onChange={(everyUnit) => change({ everyUnit }, 'schedule.everySeconds')}
            />
          </div>
          <div className="mt-3 sm:w-1/2">
            <TimeZoneField values={values} change={change} label="Time zone of start and end" />
          </div>
          <Limits values={values} change={change} />
        </>
      )}

      {values.scheduleType === 'cron' && (
        <>
          <div className="mt-3 grid gap-3 sm:grid-cols-2">
            <TextField
              field="schedule.expression"
              label="Cron expression"
              mono
              value={values.expression}
              placeholder="0 9 * * 1-5"
              hint={words ? `Reads: ${words}` : 'minute hour day-of-month month day-of-week (6 fields: seconds first)'}
              onChange={(expression) => change({ expression }, 'schedule.expression')}
            />
            <TimeZoneField values={values} change={change} label="Time zone" />
          </div>
          <Limits values={values} change={change} />
        </>
      )}
    </Section>
  );
}
