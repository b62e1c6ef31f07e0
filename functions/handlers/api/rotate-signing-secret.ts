/**
 * POST /v1/signing-secrets — a new signing secret for the calling tenant, answered once (201); the
 * secrets signing now keep signing alongside it for `overlapHours` (default 24), then expire.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import { transpileSchema } from '@middy/validator/transpile';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ulidIds } from '#adapters/ulid-ids';
import { DEFAULT_OVERLAP_HOURS, rotateSigningSecret } from '#core/tenants/signing-secrets';
import { signingSecretView } from '#core/views';
import rotateSchema from '#schemas/rotate-signing-secret.json' with { type: 'json' };
import { logger } from '../logger.ts';
import { tracer } from '../observability.ts';
import { secretCipher, signingSecretRepository } from '../wiring.ts';
import { bodyLimit } from './body-limit.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

const ids = ulidIds();
const MAX_BODY_BYTES = 1024;
const eventSchema = transpileSchema(
  { type: 'object', required: ['body'], properties: { body: rotateSchema } },
  { coerceTypes: false, useDefaults: false },
);

export async function rotateSigningSecretHandler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const { overlapHours = DEFAULT_OVERLAP_HOURS } = event.body as unknown as { overlapHours?: number };
  const issued = await rotateSigningSecret(
    { secrets: signingSecretRepository(), cipher: secretCipher(), ids },
    tenantId,
    Date.now(),
    overlapHours,
  );
  // The secret itself is never logged: only which one was issued.
  logger.info('signing secret rotated', { tenantId, secretId: issued.secretId, overlapHours });
  return json(201, signingSecretView(issued), { 'cache-control': 'no-store' });
}

/** No body means the defaults: `{}` is what is validated. */
const emptyBodyIsEmptyObject = {
  before: async ({ event }: { event: APIGatewayProxyEvent }) => {
    if ((event.body ?? '').trim() === '') event.body = '{}';
  },
};

// As `instrumented`, but the trace must not keep the response: it holds the new secret.
export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(rotateSigningSecretHandler)
  .use(captureLambdaHandler(tracer, { captureResponse: false }))
  .use(injectLambdaContext(logger))
  .use(httpErrors())
  .use(emptyBodyIsEmptyObject)
  .use(bodyLimit(MAX_BODY_BYTES))
  .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
  .use(validator({ eventSchema }));
