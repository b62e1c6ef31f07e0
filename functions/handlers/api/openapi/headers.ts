/** The headers the API reads and sets, as OpenAPI components (the route table names them). */
import type { RequestHeader, ResponseHeader } from '../routes.ts';

export const REQUEST_HEADER_PARAMETERS: Record<RequestHeader, Record<string, unknown>> = {
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key (for 24 h) answers with what the first request created, and `Idempotent-Replayed: true`; the same key with another body is a 422',
    // Visible ASCII (idempotency-key.ts): what HTTP header values and DynamoDB sort keys take unescaped.
    schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,128}$' },
    example: 'create-weekday-report-2026-11-24',
  },
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    required: true,
    description:
      'The job\'s version, its ETag (`"3"`, `3` or `W/"3"`): 428 without it, 409 when another PATCH, a pause, a resume or a cancel changed the job since (the scheduler advancing it does not)',
    schema: { type: 'string', pattern: '^(W/)?("\\d{1,15}"|\\d{1,15})$' },
    example: '"3"',
  },
};

export const RESPONSE_HEADERS: Record<ResponseHeader | 'Retry-After', Record<string, unknown>> = {
  ETag: {
    description:
      "The job's (definition) version as a strong entity tag: send it back in If-Match to change the job. PATCH, pause, resume and cancel change it; the scheduler advancing the job does not",
    schema: { type: 'string', pattern: '^"\\d+"$' },
    example: '"3"',
  },
  Location: {
    description: "The new job's URL path",
    schema: { type: 'string', pattern: '^/v1/jobs/[0-9A-HJKMNP-TV-Z]{26}$' },
    example: '/v1/jobs/01JD2Q8Z4W6X7Y8Z9A0B1C2D3E',
  },
  'Idempotent-Replayed': {
    description:
      'Present (`true`) when the answer replays the one an earlier request with the same Idempotency-Key got',
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
  'Cache-Control': {
    description: 'The answer holds a secret: never stored',
    schema: { type: 'string', enum: ['no-store'] },
    example: 'no-store',
  },
  'Retry-After': {
    description: 'Seconds until the rate limit lets the request through (RATE_LIMITED only)',
    schema: { type: 'string', pattern: '^\\d+$' },
    example: '2',
  },
};
