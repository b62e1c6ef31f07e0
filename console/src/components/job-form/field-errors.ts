/**
 * Where each error is shown: the API names fields in dotted form (`schedule.expression`,
 * `target.headers.X-Api-Key`, `retry.retryOn.2`); each maps to the input the form renders for it,
 * and an error whose field has no input on screen goes to the summary above the form.
 */
import type { FormErrors } from './to-request.ts';
import type { JobFormValues } from './values.ts';

export type FormMode = 'create' | 'edit';

/** One reason per field, an item of a list field reported at the list (`retry.retryOn.2` → `retry.retryOn`). */
export function normalizeErrors(errors: FormErrors): FormErrors {
  const normalized: FormErrors = {};
  for (const [field, reason] of Object.entries(errors)) {
    const key = field
      .replace(/^retry\.retryOn\.\d+$/, 'retry.retryOn')
      .replace(/^onFailure$/, 'onFailure.url')
      // "needs at least one limit" names flowControl itself: shown at its key, the group's first input.
      .replace(/^flowControl$/, 'flowControl.key');
    normalized[key] ??= reason;
  }
  return normalized;
}

/** The fields that have an input on screen now, for this schedule type and mode. */
export function shownFields(values: JobFormValues, mode: FormMode): Set<string> {
  const fields = ['name', 'target.url', 'target.method', 'target.body', 'schedule.type'];
  for (const row of values.headers) fields.push(`target.headers.${row.name.trim()}`);
  for (const row of values.secretHeaders) fields.push(`target.secretHeaders.${row.name.trim()}`);
  if (values.scheduleType === 'once') fields.push('schedule.at', 'schedule.timezone');
  else {
    fields.push('schedule.startAt', 'schedule.endAt', 'schedule.maxRuns');
    if (values.scheduleType === 'interval') fields.push('schedule.everySeconds');
    else fields.push('schedule.expression', 'schedule.timezone');
  }
  fields.push('misfire', 'overlap', 'timeoutSeconds', 'slaSeconds');
  fields.push('priority', 'flowControl.key', 'flowControl.ratePerSecond', 'flowControl.parallelism');
  if (mode === 'create') {
    fields.push('delivery', 'onFailure.url', 'retry.retryOn');
    for (const name of ['maxAttempts', 'initialDelaySeconds', 'maxDelaySeconds', 'multiplier'])
      fields.push(`retry.${name}`);
    fields.push('async');
    if (values.asyncEnabled)
      for (const name of ['heartbeatTimeoutSeconds', 'maxDurationSeconds', 'cancelGraceSeconds'])
        fields.push(`async.${name}`);
  }
  return new Set(fields);
}

/** The id of a field's input, for labels, `aria-describedby` and focusing the first error. */
export function inputId(field: string): string {
  return `jf-${field.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}
