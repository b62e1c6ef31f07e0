/** What Chronos calls: URL, method, headers, secret headers and a JSON body checked before sending. */
import { HeaderRows } from './HeaderRows.tsx';
import { FieldError, INPUT_CLASS, Section, SelectField, TextField, useFieldProps } from './inputs.tsx';
import type { FormChange } from './JobForm.tsx';
import { type JobFormValues, METHODS } from './values.ts';

function BodyEditor({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const hint = 'JSON, checked before sending; sent with content-type: application/json. Empty: no body.';
  const { id, error, props } = useFieldProps('target.body', hint);
  return (
    <div className="mt-3">
      <label htmlFor={id} className="block text-sm font-medium">
        Body (JSON)
      </label>
      <textarea
        {...props}
        rows={5}
        spellCheck={false}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        className={`${INPUT_CLASS} font-mono`}
        placeholder='{"hello": "world"}'
      />
      <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
        {hint}
      </p>
      <FieldError id={id} error={error} />
    </div>
  );
}

export function TargetSection({ values, change }: { values: JobFormValues; change: FormChange }) {
  return (
    <Section title="Target" description="The HTTP endpoint Chronos calls at each occurrence.">
      <div className="grid gap-3 sm:grid-cols-[1fr_10rem]">
        <TextField
          field="target.url"
          label="URL"
          type="url"
          mono
          value={values.url}
          placeholder="https://example.com/hooks/report"
          onChange={(url) => change({ url }, 'target.url')}
        />
        <SelectField
          field="target.method"
          label="Method"
          value={values.method}
          options={METHODS}
          onChange={(method) => change({ method }, 'target.method')}
        />
      </div>
      <HeaderRows kind="headers" rows={values.headers} onRows={(headers, field) => change({ headers }, field)} />
      <HeaderRows
        kind="secretHeaders"
        rows={values.secretHeaders}
        onRows={(secretHeaders, field) => change({ secretHeaders }, field)}
      />
      <BodyEditor value={values.body} onChange={(body) => change({ body }, 'target.body')} />
    </Section>
  );
}
