/**
 * Loading, error and empty states for one query, the same on every page. An error keeps the data
 * already shown (TanStack Query keeps it) and says what failed, with a retry.
 */
import type { ReactNode } from 'react';
import { errorMessage } from '../api/result.ts';

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="py-6 text-sm text-slate-500">
      Loading {what}…
    </p>
  );
}

export function ErrorState({ what, error, retry }: { what: string; error: unknown; retry?: () => void }) {
  return (
    <div role="alert" className="my-3 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
      <p>
        Could not load {what}: {errorMessage(error)}
      </p>
      {retry && (
        <button type="button" onClick={retry} className="mt-2 rounded border border-red-400 px-2 py-1 hover:bg-red-100">
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="py-6 text-sm text-slate-500">{children}</p>;
}
