/**
 * Strings a request may carry are well-formed Unicode. JSON can spell a lone surrogate
 * (`"\ud800"`), which has no UTF-8 form: DynamoDB stores strings as UTF-8 and SQS refuses such
 * characters, so one stored in a job would fail a later stage (a 500, or a run that cannot be
 * sent) instead of the request that brought it. Names and values are both checked.
 */
import type { FieldProblem } from './errors.ts';

const REASON = 'must be well-formed Unicode (it holds a lone surrogate)';

/** One problem per string (or field name) in `value` that is not well-formed, named in dotted form. */
export function illFormedStrings(value: unknown, path = ''): FieldProblem[] {
  if (typeof value === 'string') return value.isWellFormed() ? [] : [{ field: path || 'body', reason: REASON }];
  if (Array.isArray(value)) return value.flatMap((item, index) => illFormedStrings(item, join(path, String(index))));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, item]) =>
    name.isWellFormed()
      ? illFormedStrings(item, join(path, name))
      : [{ field: join(path, name.toWellFormed()), reason: REASON }],
  );
}

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);
