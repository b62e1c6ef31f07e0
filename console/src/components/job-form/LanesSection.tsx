/**
 * The runs' lane and flow control (issue #22): `priority` picks the dispatch queue and executor
 * capacity the runs get (high is never stuck behind bulk work); flow control makes every run of
 * the tenant naming the same key share its limits, whatever job it belongs to. Runs over a limit
 * wait (delayed, not failed).
 */
import { PRIORITIES, type Priority } from '@chronos/client';
import { Section, SelectField, TextField } from './inputs.tsx';
import type { FormChange } from './JobForm.tsx';
import type { JobFormValues } from './values.ts';

const PRIORITY_OPTIONS: readonly { value: Priority; label: string }[] = PRIORITIES.map((value) => ({
  value,
  label: value === 'normal' ? 'normal (default)' : value,
}));

export function LanesSection({ values, change }: { values: JobFormValues; change: FormChange }) {
  return (
    <Section
      title="Priority and flow control"
      description="Flow control is optional: runs of any of your jobs naming the same key share its limits, and a run over a limit waits its turn."
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <SelectField
          field="priority"
          label="Priority"
          value={values.priority}
          options={PRIORITY_OPTIONS}
          hint="Each priority has its own queue and executors: high is never stuck behind low"
          onChange={(priority) => change({ priority }, 'priority')}
        />
        <TextField
          field="flowControl.key"
          label="Flow-control key"
          value={values.flowKey}
          hint="1–128 characters, e.g. the API the target calls; empty: no flow control"
          onChange={(flowKey) => change({ flowKey }, 'flowControl.key')}
          mono
        />
        <TextField
          field="flowControl.ratePerSecond"
          label="Rate (calls started per second)"
          type="number"
          value={values.flowRate}
          hint="0.01–10000; empty: no rate limit"
          onChange={(flowRate) => change({ flowRate }, 'flowControl.ratePerSecond')}
        />
        <TextField
          field="flowControl.parallelism"
          label="Parallelism (calls in flight at most)"
          type="number"
          value={values.flowParallelism}
          hint="1–10000; empty: no parallelism limit"
          onChange={(flowParallelism) => change({ flowParallelism }, 'flowControl.parallelism')}
        />
      </div>
    </Section>
  );
}
