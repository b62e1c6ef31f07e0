/**
 * Whether the job is asynchronous (issue 20): its target answers 202 to take the work and reports
 * back through the `Chronos-Callback-Url` of the call (heartbeats with progress, then one
 * completion). The three limits show only for an async job; each left empty takes the API's default.
 */
import { FieldError, Section, TextField, useFieldProps } from './inputs.tsx';
import type { FormChange } from './JobForm.tsx';
import type { JobFormValues } from './values.ts';

function AsyncToggle({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  const { id, error, props } = useFieldProps('async');
  return (
    <div>
      <div className="flex items-start gap-2">
        <input
          {...props}
          type="checkbox"
          checked={checked}
          onChange={(event) => onChange(event.target.checked)}
          className="mt-1 h-4 w-4"
        />
        <label htmlFor={id} className="text-sm">
          <span className="font-medium">Run asynchronously</span>
          <span className="block text-xs text-slate-600">
            The target answers 202 to take the work, then heartbeats and completes through the callback URL each call
            carries.
          </span>
        </label>
      </div>
      <FieldError id={id} error={error} />
    </div>
  );
}

export function AsyncSection({ values, change }: { values: JobFormValues; change: FormChange }) {
  return (
    <Section title="Asynchronous (callbacks)">
      <AsyncToggle checked={values.asyncEnabled} onChange={(asyncEnabled) => change({ asyncEnabled }, 'async')} />
      {values.asyncEnabled && (
        <div className="mt-3 grid gap-3 sm:grid-cols-3">
          <TextField
            field="async.heartbeatTimeoutSeconds"
            label="Heartbeat timeout (seconds)"
            type="number"
            value={values.asyncHeartbeatTimeoutSeconds}
            hint="5–3600; empty: 60. A worker silent this long times out (heartbeat_timeout)"
            onChange={(asyncHeartbeatTimeoutSeconds) =>
              change({ asyncHeartbeatTimeoutSeconds }, 'async.heartbeatTimeoutSeconds')
            }
          />
          <TextField
            field="async.maxDurationSeconds"
            label="Longest run (seconds)"
            type="number"
            value={values.asyncMaxDurationSeconds}
            hint="Up to 604800 (7 days); empty: 3600"
            onChange={(asyncMaxDurationSeconds) => change({ asyncMaxDurationSeconds }, 'async.maxDurationSeconds')}
          />
          <TextField
            field="async.cancelGraceSeconds"
            label="Cancel grace (seconds)"
            type="number"
            value={values.asyncCancelGraceSeconds}
            hint="0–3600; empty: 30. How long a cancelled worker may still complete"
            onChange={(asyncCancelGraceSeconds) => change({ asyncCancelGraceSeconds }, 'async.cancelGraceSeconds')}
          />
        </div>
      )}
    </Section>
  );
}
