/** The parameters of an operation: its path placeholders, its query string, the headers it reads. */
import { MAX_CALLBACK_TOKEN_CHARS } from '#core/async/callback-token';
import type { DocumentedRoute } from '../routes.ts';
import { REQUEST_HEADER_PARAMETERS } from './headers.ts';

/** What each path placeholder of the route table holds (path-id.ts: anything else is a 404). */
const PATH_PARAMETERS: Record<string, Record<string, unknown>> = {
  id: {
    description: 'The job id (a ULID); under /v1/workflows, the workflow id (`wf` and a ULID)',
    schema: { type: 'string', pattern: '^(wf)?[0-9A-HJKMNP-TV-Z]{26}$' },
    example: '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E',
  },
  workflowRunId: {
    description: 'The workflow run id: `<workflowId>_<occurrence epoch ms>`',
    schema: { type: 'string', pattern: '^wf[0-9A-HJKMNP-TV-Z]{26}_\\d{1,16}$' },
    example: 'wf01JD2Q8Z4W6X7Y8Z9A0B1C2D3E_1795507200000',
  },
  runId: {
    description: 'The run id: `<jobId>_<scheduledFor epoch ms>_<attempt>`',
    schema: { type: 'string', pattern: '^[0-9A-Za-z]+_\\d{1,16}_\\d{1,3}$' },
    example: '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E_1795507200000_1',
  },
  key: {
    description: 'A flow-control key of the tenant (URL-encoded; 1 to 128 characters once decoded)',
    schema: { type: 'string', minLength: 1 },
    example: 'partner-api',
  },
  token: {
    description:
      "The callback token, the route's only credential: the last segment of the call's `Chronos-Callback-Url` (HMAC-bound to the tenant, job, occurrence and attempt)",
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', maxLength: MAX_CALLBACK_TOKEN_CHARS },
    example: 'AQGaBcDeFgABAXQxMjMaMDFKRDJROFo0VzZYN1k4WjlBMEIxQzJEM0VrbXV0YXRlZC1tYWMtMzItYnl0ZXMtaGVyZS4uLi4',
  },
};

export function parametersOf(route: DocumentedRoute): Record<string, unknown>[] {
  const path = [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name = '']) => {
    const known = PATH_PARAMETERS[name];
    if (!known) throw new Error(`${route.method} ${route.path}: no description of the path parameter "${name}"`);
    return { name, in: 'path', required: true, ...known };
  });
  const query = (route.query ?? []).map((parameter) => ({
    name: parameter.name,
    in: 'query',
    required: false,
    description: parameter.description,
    schema: parameter.schema,
  }));
  const headers = (route.requestHeaders ?? []).map((name) => REQUEST_HEADER_PARAMETERS[name]);
  return [...path, ...query, ...headers];
}
