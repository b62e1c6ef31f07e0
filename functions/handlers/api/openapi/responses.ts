/**
 * The answers of an operation: its successes (route table: status, schema under schemas/,
 * headers) and its errors, every one in the Chronos error shape (schemas/error.json).
 */
import type { DocumentedRoute, RouteAnswer } from '../routes.ts';
import { componentName, schemaRef } from './components.ts';
import { RESPONSE_HEADERS } from './headers.ts';
import { SCHEMA_FILES } from './schema-files.ts';

type ErrorStatus = DocumentedRoute['errors'][number] | 403;

/** One reusable response per error status, with an example of its body. */
const ERRORS: Record<ErrorStatus, { name: string; description: string; code: string; message: string }> = {
  400: {
    name: 'BadRequest',
    description: 'Invalid input: every failing field, query parameter or header is named in `details`',
    code: 'VALIDATION_FAILED',
    message: 'The request is invalid',
  },
  401: {
    name: 'Unauthorized',
    description: 'No valid bearer token',
    code: 'UNAUTHORIZED',
    message: 'Unauthorized',
  },
  403: {
    name: 'Forbidden',
    description: 'The token may not use this route (the admin scope on a tenant route, a tenant on an admin route)',
    code: 'FORBIDDEN',
    message: 'User is not authorized to access this resource',
  },
  404: {
    name: 'NotFound',
    description: 'No such job or run for this tenant',
    code: 'NOT_FOUND',
    message: 'job 01JD2Q8Z4W6X7Y8Z9A0B1C2D3E not found',
  },
  409: {
    name: 'Conflict',
    description: 'A conflicting change, or a transition the job or run cannot make in its state',
    code: 'CONFLICT',
    message: 'job 01JD2Q8Z4W6X7Y8Z9A0B1C2D3E is PAUSED; resume it first',
  },
  422: {
    name: 'IdempotencyKeyReused',
    description: 'The Idempotency-Key was sent within 24 h with another body',
    code: 'IDEMPOTENCY_KEY_REUSED',
    message: 'Idempotency-Key reused with another body',
  },
  428: {
    name: 'PreconditionRequired',
    description: 'A change without If-Match',
    code: 'PRECONDITION_REQUIRED',
    message: 'Send If-Match with the job version (its ETag)',
  },
  429: {
    name: 'TooManyRequests',
    description: 'RATE_LIMITED (with Retry-After) or QUOTA_EXCEEDED',
    code: 'RATE_LIMITED',
    message: 'Too many job creations; retry later',
  },
};

/** The 401 of a callback route: its token, not a bearer token, is what was refused. */
const INVALID_CALLBACK_TOKEN = {
  name: 'InvalidCallbackToken',
  description: 'The callback token is forged, tampered with, ill-formed or too long',
  code: 'INVALID_CALLBACK_TOKEN',
  message: 'the callback token is not valid',
};

const errorBody = (error: { code: string; message: string }) => ({
  'application/json': {
    schema: schemaRef('error.json'),
    example: { error: { code: error.code, message: error.message, details: [] } },
  },
});

/** components.responses: one per error status, and `Error` for anything else (5xx). */
export function errorResponseComponents(): Record<string, unknown> {
  const byStatus = Object.entries(ERRORS).map(([status, error]) => [
    error.name,
    {
      description: error.description,
      ...(status === '429' ? { headers: { 'Retry-After': RESPONSE_HEADERS['Retry-After'] } } : {}),
      content: errorBody(error),
    },
  ]);
  return Object.fromEntries([
    ...byStatus,
    [
      INVALID_CALLBACK_TOKEN.name,
      { description: INVALID_CALLBACK_TOKEN.description, content: errorBody(INVALID_CALLBACK_TOKEN) },
    ],
    [
      'Error',
      {
        description: 'Anything else, in the same shape (e.g. 500 INTERNAL: a defect, the details stay in the log)',
        content: {
          'application/json': {
            schema: schemaRef('error.json'),
            example: { error: { code: 'INTERNAL', message: 'Internal error', details: [] } },
          },
        },
      },
    ],
  ]);
}

function successResponse(answer: RouteAnswer): Record<string, unknown> {
  const headers = [
    ...(answer.headers ?? []).map((name) => [name, { ...RESPONSE_HEADERS[name], required: true }] as const),
    ...(answer.optionalHeaders ?? []).map((name) => [name, RESPONSE_HEADERS[name]] as const),
  ];
  const examples = SCHEMA_FILES[answer.schema]?.examples;
  return {
    description: answer.description,
    ...(headers.length > 0 ? { headers: Object.fromEntries(headers) } : {}),
    content: {
      'application/json': {
        schema: schemaRef(answer.schema),
        ...(Array.isArray(examples) && examples.length > 0
          ? {
              examples: Object.fromEntries(
                examples.map((value, i) => [`${componentName(answer.schema)}${i + 1}`, { value }]),
              ),
            }
          : {}),
      },
    },
  };
}

/** The route's answers by status; authorized routes add the gateway's 401 and 403. */
export function responsesOf(route: DocumentedRoute): Record<string, unknown> {
  const errors = new Set<ErrorStatus>(route.errors);
  if (route.authorized) {
    errors.add(401);
    errors.add(403);
  }
  const responses: Record<string, unknown> = {};
  for (const answer of route.answers) responses[String(answer.status)] = successResponse(answer);
  for (const status of [...errors].sort()) {
    const name =
      status === 401 && route.credential === 'callback-token' ? INVALID_CALLBACK_TOKEN.name : ERRORS[status].name;
    responses[String(status)] = { $ref: `#/components/responses/${name}` };
  }
  responses.default = { $ref: '#/components/responses/Error' };
  return responses;
}
