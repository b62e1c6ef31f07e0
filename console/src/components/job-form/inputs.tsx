/**
 * The form's labelled inputs. Each is bound to the field the API names (`schedule.expression`):
 * its error, from the browser's check or the API's answer, shows under it and is tied to it with
 * `aria-invalid` and `aria-describedby`.
 */
import { createContext, type ReactNode, useContext } from 'react';
import { inputId } from './field-errors.ts';

export const ErrorsContext = createContext<Readonly<Record<string, string>>>({});

export const INPUT_CLASS =
  'mt-1 w-full rounded border border-slate-400 bg-white px-2 py-1.5 text-sm placeholder:text-slate-500 aria-[invalid=true]:border-red-600';

/** The attributes that tie an input to its label, hint and error. */
export function useFieldProps(field: string, hint?: string) {
  const error = useContext(ErrorsContext)[field];
  const id = inputId(field);
  const describedBy = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return {
    id,
    error,
    props: { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy || undefined },
  };
}

export function FieldError({ id, error }: { id: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p id={`${id}-error`} className="mt-1 text-sm text-red-700">
      {error}
    </p>
  );
}

function Hint({ id, hint }: { id: string; hint: string | undefined }) {
  return hint ? (
    <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
      {hint}
    </p>
  ) : null;
}

interface TextFieldProps {
  field: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  hint?: string;
  type?: 'text' | 'url' | 'number' | 'datetime-local';
  placeholder?: string;
  className?: string;
  mono?: boolean;
}

export function TextField({
  field,
  label,
  value,
  onChange,
  hint,
  type = 'text',
  placeholder,
  className,
  mono,
}: TextFieldProps) {
  const { id, error, props } = useFieldProps(field, hint);
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <input
        {...props}
        type={type}
        value={value}
        placeholder={placeholder}
        step={type === 'datetime-local' ? 1 : type === 'number' ? 'any' : undefined}
        onChange={(event) => onChange(event.target.value)}
        className={`${INPUT_CLASS} ${mono ? 'font-mono' : ''}`}
      />
      <Hint id={id} hint={hint} />
      <FieldError id={id} error={error} />
    </div>
  );
}

interface SelectFieldProps<T extends string> {
  field: string;
  label: string;
  value: T;
  options: readonly T[] | readonly { value: T; label: string }[];
  onChange: (value: T) => void;
  hint?: string;
  className?: string;
}

export function SelectField<T extends string>({
  field,
  label,
  value,
  options,
  onChange,
  hint,
  className,
}: SelectFieldProps<T>) {
  const { id, error, props } = useFieldProps(field, hint);
  return (
    <div className={className}>
      <label htmlFor={id} className="block text-sm font-medium">
        {label}
      </label>
      <select {...props} value={value} onChange={(event) => onChange(event.target.value as T)} className={INPUT_CLASS}>
        {options.map((option) => {
          const { value: optionValue, label: optionLabel } =
            typeof option === 'string' ? { value: option, label: option } : option;
          return (
            <option key={optionValue} value={optionValue}>
              {optionLabel}
            </option>
          );
        })}
      </select>
      <Hint id={id} hint={hint} />
      <FieldError id={id} error={error} />
    </div>
  );
}

export function Section({
  title,
  children,
  description,
}: {
  title: string;
  children: ReactNode;
  description?: string;
}) {
  return (
    <fieldset className="rounded-lg border border-slate-200 bg-white p-4">
      <legend className="px-1 text-base font-semibold">{title}</legend>
      {description && <p className="mb-3 text-sm text-slate-600">{description}</p>}
      {children}
    </fieldset>
  );
}
