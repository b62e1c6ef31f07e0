/**
 * Turns Ajv errors for an API Gateway event (`/body/...` paths) into `{ field, reason }` pairs
 * that name the request field in dotted form.
 */
import type { FieldProblem } from '#core/errors';

export interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function fieldOf(instancePath: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (parts[0] === 'body') parts.shift();
  return parts.join('.');
}

const join = (path: string, name: unknown) => (path ? `${path}.${String(name)}` : String(name));

/** One problem per Ajv error, naming the field and the reason. */
export function problemsOf(errors: AjvError[]): FieldProblem[] {
  return errors.map((error) => {
    const path = fieldOf(error.instancePath);
    switch (error.keyword) {
      case 'required':
        return { field: join(path, error.params.missingProperty), reason: 'is required' };
      case 'additionalProperties':
        return { field: join(path, error.params.additionalProperty), reason: 'is not an allowed field' };
      case 'enum':
        return {
          field: path || 'body',
          reason: `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`,
        };
      default:
        return { field: path || 'body', reason: error.message ?? error.keyword };
    }
  });
}
