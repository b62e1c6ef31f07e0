/**
 * Validates `target.secretHeaders` with the same rules as plain headers (header-rules.ts), each
 * problem naming `target.secretHeaders.<name>`; a name given both plain and secret is refused.
 */
import type { FieldProblem } from '../errors.ts';
import { checkHeaders } from '../header-rules.ts';

/** The accepted secret headers, or undefined when none were given; problems are pushed. */
export function parseSecretHeaders(
  secretHeaders: Record<string, string> | undefined,
  plainHeaders: Record<string, string> | undefined,
  problems: FieldProblem[],
): Record<string, string> | undefined {
  if (secretHeaders === undefined || Object.keys(secretHeaders).length === 0) return undefined;
  const own: FieldProblem[] = [];
  // Checked together with the plain ones: the size limits and duplicate names cover both.
  checkHeaders({ ...(plainHeaders ?? {}), ...secretHeaders }, own);
  const plainNames = new Set(Object.keys(plainHeaders ?? {}).map((name) => name.toLowerCase()));
  for (const problem of own) {
    const name = problem.field.slice('target.headers.'.length);
    if (problem.field.startsWith('target.headers.') && Object.hasOwn(secretHeaders, name)) {
      problems.push({ field: `target.secretHeaders.${name}`, reason: problem.reason });
    } else if (problem.field === 'target.headers') {
      problems.push({ field: 'target.secretHeaders', reason: `together with target.headers ${problem.reason}` });
    }
  }
  for (const name of Object.keys(secretHeaders)) {
    if (plainNames.has(name.toLowerCase()) && !problems.some((p) => p.field === `target.secretHeaders.${name}`))
      problems.push({ field: `target.secretHeaders.${name}`, reason: 'is also a plain header' });
  }
  return secretHeaders;
}
