/**
 * Above the form after a refused submit: what went wrong, and every error whose field has no input
 * on screen (e.g. `schedule` as a whole, or a header rule naming `target.headers`).
 */
import { ChronosError, errorMessage } from '../../api/result.ts';
import type { FormErrors } from './to-request.ts';

interface ErrorSummaryProps {
  submitError: unknown;
  browserErrors: FormErrors;
  unplaced: [field: string, reason: string][];
}

export function ErrorSummary({ submitError, browserErrors, unplaced }: ErrorSummaryProps) {
  const browserCount = Object.keys(browserErrors).length;
  if (!submitError && browserCount === 0) return null;
  const validation = submitError instanceof ChronosError && submitError.error.code === 'VALIDATION_FAILED';
  let headline: string;
  if (browserCount > 0) headline = 'Nothing was sent: fix the fields marked below first.';
  else if (validation) headline = 'The API refused the job: see the fields marked below.';
  else headline = `Not saved: ${errorMessage(submitError)}`;
  return (
    <div
      role="alert"
      tabIndex={-1}
      data-error-summary
      className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900"
    >
      <p className="font-medium">{headline}</p>
      {unplaced.length > 0 && (
        <ul className="mt-1 list-disc pl-5">
          {unplaced.map(([field, reason]) => (
            <li key={field}>
              <code>{field}</code> {reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
