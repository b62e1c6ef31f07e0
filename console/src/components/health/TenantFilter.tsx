/** The operator's tenant filter: every tenant (empty), or one tenant's numbers. */
import { type FormEvent, useEffect, useState } from 'react';

export function TenantFilter({ value, onChange }: { value: string; onChange: (next: string) => void }) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  function submit(event: FormEvent) {
    event.preventDefault();
    onChange(draft.trim());
  }
  return (
    <form onSubmit={submit} className="flex items-end gap-2" aria-label="Tenant filter">
      <label className="text-sm">
        Tenant id
        <input
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="all tenants"
          maxLength={128}
          className="mt-1 block rounded border border-slate-300 bg-white px-2 py-1 font-mono text-sm"
        />
      </label>
      <button
        type="submit"
        className="rounded bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700"
      >
        Show
      </button>
      {value && (
        <button
          type="button"
          onClick={() => onChange('')}
          className="rounded border border-slate-300 px-3 py-1.5 text-sm hover:bg-slate-100"
        >
          All tenants
        </button>
      )}
    </form>
  );
}
