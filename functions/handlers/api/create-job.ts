/** POST /v1/jobs — validate, store, and (when due soon) materialize a job. */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import { transpileSchema } from '@middy/validator/transpile';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ulidIds } from '#adapters/ulid-ids';
import { type CreateJobInput, parseCreateJob } from '#core/job-input';
import { MAX_REQUEST_BODY_BYTES } from '#core/limits';
import { createJob as createJobUseCase } from '#core/use-cases/create-job';
import { jobView } from '#core/views';
import createJobSchema from '#schemas/create-job.json' with { type: 'json' };
import { logger } from '../logger.ts';
import { materializeDeps, outboundRules } from '../wiring.ts';
import { bodyLimit } from './body-limit.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

const ids = ulidIds();
const eventSchema = transpileSchema(
  { type: 'object', required: ['body'], properties: { body: createJobSchema } },
  // The body is JSON already: "30" is not a number, whatever query-string habits say.
  { coerceTypes: false, useDefaults: false },
);

export async function createJob(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const now = Date.now();
  const fields = parseCreateJob(event.body as unknown as CreateJobInput, now, outboundRules());
  const job = await createJobUseCase({ ...materializeDeps(), ids }, tenantId, fields, now);
  logger.info('job created', { tenantId, jobId: job.jobId, nextFireAt: job.nextFireAt });
  return json(201, jobView(job), { location: `/v1/jobs/${job.jobId}` });
}

export const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(createJob)
  .use(injectLambdaContext(logger))
  .use(httpErrors())
  .use(bodyLimit(MAX_REQUEST_BODY_BYTES))
  .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
  .use(validator({ eventSchema }));
