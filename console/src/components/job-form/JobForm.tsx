/**
 * The job form shared by create and edit: target, schedule with the server's live preview,
 * policies, priority and flow control, and (on create) retries and delivery, and whether the job is asynchronous. Errors show at their fields, whether the browser
 * found them (a body that is not JSON) or the API named them; the rest in a summary above. After a
 * refused submit the first field in error gets the focus.
 */
import { type FormEvent, type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { fieldErrors } from '../../api/result.ts';
import { useSchedulePreview } from '../../api/schedules.ts';
import { AsyncSection } from './AsyncSection.tsx';
import { DeliverySection } from './DeliverySection.tsx';
import { ErrorSummary } from './ErrorSummary.tsx';
import { type FormMode, normalizeErrors, shownFields } from './field-errors.ts';
import { ErrorsContext, Section, TextField } from './inputs.tsx';
import { LanesSection } from './LanesSection.tsx';
import { PoliciesSection } from './PoliciesSection.tsx';
import { SchedulePreview } from './SchedulePreview.tsx';
import { ScheduleSection } from './ScheduleSection.tsx';
import { TargetSection } from './TargetSection.tsx';
import { type FormErrors, previewableSchedule } from './to-request.ts';
import { useDebounced } from './use-debounced.ts';
import type { JobFormValues } from './values.ts';

/** Changes some values; `field` (as the API names it) loses its error until the next submit. */
export type FormChange = (patch: Partial<JobFormValues>, field: string) => void;

const PREVIEW_COUNT = 5;
const PREVIEW_DEBOUNCE_MS = 300;

interface JobFormProps {
  mode: FormMode;
  initial: JobFormValues;
  submitLabel: string;
  busy: boolean;
  /** The last refusal of the submit call, shown at its fields (undefined: none, or shown by the page). */
  submitError: unknown;
  /** Builds the request and sends it; answers the problems found before any call. */
  onSubmit: (values: JobFormValues) => FormErrors | undefined;
  cancelTo: string;
  /** Shown above the buttons (the edit page's conflict notice). */
  notice?: ReactNode;
}

function without(errors: FormErrors, dismissed: ReadonlySet<string>): FormErrors {
  return Object.fromEntries(Object.entries(errors).filter(([field]) => !dismissed.has(field)));
}

export function JobForm({ mode, initial, submitLabel, busy, submitError, onSubmit, cancelTo, notice }: JobFormProps) {
  const [values, setValues] = useState(initial);
  const [clientErrors, setClientErrors] = useState<FormErrors>({});
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  const [focusRequest, setFocusRequest] = useState(0);
  const form = useRef<HTMLFormElement>(null);

  const change: FormChange = (patch, field) => {
    setValues((current) => ({ ...current, ...patch }));
    setDismissed((current) => new Set(current).add(field));
  };

  // The preview asks the server once the schedule stops changing; a stale answer is not shown.
  const scheduleJson = JSON.stringify(previewableSchedule(values) ?? null);
  const settledJson = useDebounced(scheduleJson, PREVIEW_DEBOUNCE_MS);
  const previewBody = useMemo(
    () => (settledJson === 'null' ? undefined : { schedule: JSON.parse(settledJson), count: PREVIEW_COUNT }),
    [settledJson],
  );
  const preview = useSchedulePreview(previewBody);
  const previewCurrent = settledJson === scheduleJson;
  const previewErrors = previewCurrent ? normalizeErrors(fieldErrors(preview.error)) : {};

  const apiErrors = without(normalizeErrors(fieldErrors(submitError)), dismissed);
  const browserErrors = without(clientErrors, dismissed);
  const errors = { ...previewErrors, ...apiErrors, ...browserErrors };
  const shown = shownFields(values, mode);
  const unplaced = Object.entries({ ...apiErrors, ...browserErrors }).filter(([field]) => !shown.has(field));

  // A new refusal: focus the first field in error (or the summary), so the keyboard lands on it.
  useEffect(() => {
    if (focusRequest === 0 && !submitError) return;
    const target =
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ??
      form.current?.querySelector<HTMLElement>('[data-error-summary]');
    target?.focus();
  }, [focusRequest, submitError]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    setDismissed(new Set());
    const problems = onSubmit(values) ?? {};
    setClientErrors(problems);
    if (Object.keys(problems).length > 0) setFocusRequest((n) => n + 1);
  }

  return (
    <ErrorsContext.Provider value={errors}>
      <form ref={form} onSubmit={submit} noValidate className="space-y-5">
        <ErrorSummary submitError={submitError} browserErrors={browserErrors} unplaced={unplaced} />
        <Section title="Job">
          <TextField
            field="name"
            label="Name"
            value={values.name}
            hint="Optional; the jobs list filters by its beginning"
            onChange={(name) => change({ name }, 'name')}
            className="sm:w-1/2"
          />
        </Section>
        <TargetSection values={values} change={change} />
        <div>
          <ScheduleSection values={values} change={change} />
          <SchedulePreview
            idle={scheduleJson === 'null'}
            loading={!previewCurrent || preview.isFetching}
            occurrences={previewCurrent ? preview.data?.occurrences : undefined}
            error={previewCurrent ? preview.error : undefined}
            errorShownAtField={Object.keys(previewErrors).some((field) => shown.has(field))}
            zone={values.timezone}
          />
        </div>
        <PoliciesSection values={values} change={change} />
        <LanesSection values={values} change={change} />
        <DeliverySection values={values} change={change} />
        {mode === 'create' && <AsyncSection values={values} change={change} />}
        {notice}
        <div className="flex items-center gap-3">
          <button
            type="submit"
            disabled={busy}
            className="rounded bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
          >
            {busy ? 'Saving…' : submitLabel}
          </button>
          <Link to={cancelTo} className="text-sm text-slate-700 underline hover:text-slate-900">
            Cancel
          </Link>
        </div>
      </form>
    </ErrorsContext.Provider>
  );
}
