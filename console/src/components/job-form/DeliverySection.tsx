/** Retries, delivery guarantee and the failure notice (on edit, a retry policy is replaced whole). */
import { Section, SelectField, TextField } from './inputs.tsx';
import type { FormChange } from './JobForm.tsx';
import { DELIVERIES, type JobFormValues } from './values.ts';

export function DeliverySection({ values, change }: { values: JobFormValues; change: FormChange }) {
  return (
    <Section title="Retries and delivery">
      <div className="grid gap-3 sm:grid-cols-2">
        <SelectField
          field="delivery"
          label="Delivery"
          value={values.delivery}
          options={DELIVERIES}
          hint="at-most-once: never called twice for one occurrence, and never retried"
          onChange={(delivery) => change({ delivery }, 'delivery')}
        />
        <TextField
          field="onFailure.url"
          label="Failure notice URL (optional)"
          type="url"
          mono
          value={values.onFailureUrl}
          hint="Called when an occurrence fails for good"
          onChange={(onFailureUrl) => change({ onFailureUrl }, 'onFailure.url')}
        />
        <TextField
          field="retry.maxAttempts"
          label="Attempts"
          type="number"
          value={values.retryMaxAttempts}
          hint="1–20; empty: 3"
          onChange={(retryMaxAttempts) => change({ retryMaxAttempts }, 'retry.maxAttempts')}
        />
        <TextField
          field="retry.multiplier"
          label="Backoff multiplier"
          type="number"
          value={values.retryMultiplier}
          hint="1–10; empty: 2"
          onChange={(retryMultiplier) => change({ retryMultiplier }, 'retry.multiplier')}
        />
        <TextField
          field="retry.initialDelaySeconds"
          label="First retry after (seconds)"
          type="number"
          value={values.retryInitialDelaySeconds}
          hint="1–3600; empty: 1"
          onChange={(retryInitialDelaySeconds) => change({ retryInitialDelaySeconds }, 'retry.initialDelaySeconds')}
        />
        <TextField
          field="retry.maxDelaySeconds"
          label="Longest retry delay (seconds)"
          type="number"
          value={values.retryMaxDelaySeconds}
          hint="1–86400; empty: 300"
          onChange={(retryMaxDelaySeconds) => change({ retryMaxDelaySeconds }, 'retry.maxDelaySeconds')}
        />
        <TextField
          field="retry.retryOn"
          label="Also retry on (4xx statuses)"
          value={values.retryOn}
          placeholder="408, 429"
          hint="Comma-separated; 5xx, 429, timeouts and connection errors are always retried"
          onChange={(retryOn) => change({ retryOn }, 'retry.retryOn')}
          className="sm:col-span-2"
        />
      </div>
    </Section>
  );
}
