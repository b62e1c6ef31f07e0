/** How each occurrence is run: missed occurrences, overlap, the call's timeout and the start-lag SLA. */
import { Section, SelectField, TextField } from './inputs.tsx';
import type { FormChange } from './JobForm.tsx';
import { type JobFormValues, MISFIRES, OVERLAPS } from './values.ts';

export function PoliciesSection({ values, change }: { values: JobFormValues; change: FormChange }) {
  return (
    <Section title="Policies">
      <div className="grid gap-3 sm:grid-cols-2">
        <SelectField
          field="misfire"
          label="Missed occurrences (misfire)"
          value={values.misfire}
          options={MISFIRES}
          hint="fire_once: run the latest missed once; fire_all: each (at most 100); skip: none"
          onChange={(misfire) => change({ misfire }, 'misfire')}
        />
        <SelectField
          field="overlap"
          label="Overlapping runs"
          value={values.overlap}
          options={OVERLAPS}
          hint="forbid: an occurrence due while a run is in flight is skipped"
          onChange={(overlap) => change({ overlap }, 'overlap')}
        />
        <TextField
          field="timeoutSeconds"
          label="Timeout (seconds)"
          type="number"
          value={values.timeoutSeconds}
          hint="1–300; empty: 30"
          onChange={(timeoutSeconds) => change({ timeoutSeconds }, 'timeoutSeconds')}
        />
        <TextField
          field="slaSeconds"
          label="Start-lag SLA (seconds)"
          type="number"
          value={values.slaSeconds}
          hint="1–3600; empty: 5"
          onChange={(slaSeconds) => change({ slaSeconds }, 'slaSeconds')}
        />
      </div>
    </Section>
  );
}
