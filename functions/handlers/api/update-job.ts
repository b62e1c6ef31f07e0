/**
 * PATCH /v1/jobs/{id} — change a job's name, target, schedule, policies (misfire, overlap, retry,
 * delivery, onFailure) or timeouts.
 *
 * Optimistic concurrency: `If-Match: <version>` (the job's ETag, quoted or not) is required; a
 * request without it gets 428 Precondition Required, one naming another version 409. The version
 * is the job's definition version (#core/definition-version): the scanner advancing the job does
 * not change it, another client's PATCH, pause, resume or cancel does. The answer carries the new ETag.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import { transpileSchema } from '@middy/validator/transpile';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { definitionVersionOf } from '#core/definition-version';
import { MAX_REQUEST_BODY_BYTES } from '#core/limits';
import { parseUpdateJobRequest, type UpdateJobInput } from '#core/update-input';
import { updateJob as updateJobUseCase } from '#core/use-cases/update-job';
import { jobView } from '#core/views';
import asyncSettingsSchema from '#schemas/async-settings.json' with { type: 'json' };
import updateJobSchema from '#schemas/update-job.json' with { type: 'json' };
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { materializeDeps, outboundRules } from '../wiring.ts';
import { bodyLimit } from './body-limit.ts';
import { writeFlowLimits } from './flow-control-limits.ts';
import { httpErrors } from './http-errors.ts';
import { admittedChange, runMeterOf } from './job-admission.ts';
import { etagOf, ifMatchVersionOf } from './job-etag.ts';
import { jobIdOf } from './path-id.ts';
import { quotaErrors } from './quota-errors.ts';
import { errorResponse, json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { wellFormedBody } from './well-formed-body.ts';

const eventSchema = transpileSchema(
  { type: 'object', required: ['body'], properties: { body: updateJobSchema } },
  { coerceTypes: false, useDefaults: false, schemas: { 'async-settings.json': asyncSettingsSchema } },
);

export async function updateJob(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const jobId = jobIdOf(event);
  const expectedVersion = ifMatchVersionOf(event);
  if (expectedVersion === undefined) {
    return errorResponse(428, 'PRECONDITION_REQUIRED', 'Send If-Match with the job version (its ETag)', [
      { field: 'If-Match', reason: 'is required' },
    ]);
  }
  const now = Date.now();
  const parsed = parseUpdateJobRequest(event.body as unknown as UpdateJobInput, now, outboundRules());
  // The tenant's body quotas (minimum interval, payload size); secret headers sealed.
  const change = await admittedChange(tenantId, parsed);
  const job = await updateJobUseCase(
    materializeDeps(),
    tenantId,
    jobId,
    change,
    expectedVersion,
    now,
    runMeterOf(tenantId, now),
  );
  await writeFlowLimits(tenantId, [change.flowControl], now);
  logger.info('job updated', { tenantId, jobId, version: definitionVersionOf(job), fields: Object.keys(change) });
  return json(200, jobView(job), { etag: etagOf(job) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(updateJob)
  .use(httpErrors())
  .use(quotaErrors())
  .use(bodyLimit(MAX_REQUEST_BODY_BYTES))
  .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
  .use(wellFormedBody())
  .use(validator({ eventSchema }));
