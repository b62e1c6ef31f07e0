/**
 * Headers as name/value rows, plain or secret. A secret header the job already has shows `***`
 * (its value never leaves the server): typing a value replaces it, leaving it empty keeps it.
 */
import { useContext } from 'react';
import { inputId } from './field-errors.ts';
import { ErrorsContext, FieldError, INPUT_CLASS } from './inputs.tsx';
import { type HeaderRow, rowKey } from './values.ts';

interface HeaderRowsProps {
  kind: 'headers' | 'secretHeaders';
  rows: HeaderRow[];
  onRows: (rows: HeaderRow[], changedField: string) => void;
}

export function HeaderRows({ kind, rows, onRows }: HeaderRowsProps) {
  const errors = useContext(ErrorsContext);
  const secret = kind === 'secretHeaders';
  const noun = secret ? 'secret header' : 'header';
  const fieldOf = (row: HeaderRow) => `target.${kind}.${row.name.trim()}`;
  const change = (index: number, patch: Partial<HeaderRow>) => {
    const row = rows[index];
    if (!row) return;
    onRows(
      rows.map((other, i) => (i === index ? { ...other, ...patch } : other)),
      fieldOf(row),
    );
  };

  return (
    <div className="mt-3">
      <p className="text-sm font-medium">{secret ? 'Secret headers' : 'Headers'}</p>
      <p className="text-xs text-slate-600">
        {secret
          ? 'Sealed at rest and never shown again (e.g. Authorization): a stored value shows as ***.'
          : 'Sent with every call.'}
      </p>
      {rows.map((row, index) => {
        const field = fieldOf(row);
        const error = row.name.trim() ? errors[field] : undefined;
        const errorId = inputId(field);
        const described = error ? `${errorId}-error` : undefined;
        const number = index + 1;
        return (
          <div key={row.key} className="mt-2">
            <div className="flex gap-2">
              <input
                aria-label={`Name of ${noun} ${number}`}
                value={row.name}
                readOnly={row.stored}
                placeholder="Header-Name"
                aria-invalid={error ? true : undefined}
                aria-describedby={described}
                onChange={(event) => change(index, { name: event.target.value })}
                className={`${INPUT_CLASS} mt-0 w-2/5 font-mono read-only:bg-slate-100`}
              />
              <input
                aria-label={`Value of ${noun} ${number}`}
                type={secret ? 'password' : 'text'}
                autoComplete="off"
                value={row.value}
                placeholder={row.stored ? '***' : 'value'}
                aria-invalid={error ? true : undefined}
                aria-describedby={described}
                onChange={(event) => change(index, { value: event.target.value })}
                className={`${INPUT_CLASS} mt-0 font-mono`}
              />
              <button
                type="button"
                onClick={() =>
                  onRows(
                    rows.filter((_, i) => i !== index),
                    field,
                  )
                }
                className="shrink-0 rounded border border-slate-300 px-2 text-sm hover:bg-slate-100"
              >
                Remove<span className="sr-only"> {`${noun} ${number}`}</span>
              </button>
            </div>
            <FieldError id={errorId} error={error} />
          </div>
        );
      })}
      <button
        type="button"
        onClick={() => onRows([...rows, { key: rowKey(), name: '', value: '', stored: false }], `target.${kind}`)}
        className="mt-2 rounded border border-slate-300 px-2 py-1 text-sm hover:bg-slate-100"
      >
        Add {noun}
      </button>
    </div>
  );
}
