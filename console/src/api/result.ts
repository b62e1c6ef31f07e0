/**
 * The typed client answers errors as values; TanStack Query wants a thrown error to show an error
 * state and keep the last data. `data(result)` is that bridge, `ChronosError` carries the API's
 * code, message and the field it named.
 */
import { ChronosError, type ChronosResult, unwrap } from '@chronos/client';

export { ChronosError };

/** The data of a call, or a thrown ChronosError for TanStack Query. */
export async function data<T>(call: Promise<ChronosResult<T>>): Promise<T> {
  return unwrap(await call);
}

/** The message to show for a failed call, naming the field when the API named one. */
export function errorMessage(error: unknown): string {
  if (error instanceof ChronosError) {
    const { status, message, field } = error.error;
    if (status === 0) return 'The API could not be reached. Check your connection and try again.';
    return field ? `${message} (${field})` : message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The API's field errors, dotted field → reason, for showing each next to its form field. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ChronosError)) return {};
  const errors: Record<string, string> = {};
  for (const { field, reason } of error.error.details) if (!(field in errors)) errors[field] = reason;
  return errors;
}
