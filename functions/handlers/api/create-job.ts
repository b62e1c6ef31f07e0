/**
 * POST /v1/jobs — validate, store, and (when due soon) materialize a job. An optional
 * `Idempotency-Key` header makes retries safe: the same key (per tenant, for 24 h) with the same
 * body answers with the job the first request created (`Idempotent-Replayed: true`); with
 * another body, 422 (core/use-cases/create-job-once.ts).
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import { transpileSchema } from '@middy/validator/transpile';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ulidIds } from '#adapters/ulid-ids';
import { type CreateJobInput, parseCreateJobRequest } from '#core/job-input';
import { MAX_REQUEST_BODY_BYTES } from '#core/limits';
import { createJob as createJobUseCase } from '#core/use-cases/create-job';
import { createJobOnce, requestFingerprint } from '#core/use-cases/create-job-once';
import { jobView } from '#core/views';
import asyncSettingsSchema from '#schemas/async-settings.json' with { type: 'json' };
import createJobSchema from '#schemas/create-job.json' with { type: 'json' };
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { createKeyRepository, jobRepository, materializeDeps, outboundRules } from '../wiring.ts';
import { bodyLimit } from './body-limit.ts';
import { writeFlowLimits } from './flow-control-limits.ts';
import { httpErrors } from './http-errors.ts';
import { idempotencyKeyOf } from './idempotency-key.ts';
import { admittedCreate } from './job-admission.ts';
import { quotaErrors } from './quota-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { wellFormedBody } from './well-formed-body.ts';

const ids = ulidIds();
const eventSchema = transpileSchema(
  { type: 'object', required: ['body'], properties: { body: createJobSchema } },
  // The body is JSON already: "30" is not a number, whatever query-string habits say.
  { coerceTypes: false, useDefaults: false, schemas: { 'async-settings.json': asyncSettingsSchema } },
);

export async function createJob(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const key = idempotencyKeyOf(event);
  const now = Date.now();
  const body = event.body as unknown as CreateJobInput;
  const parsed = parseCreateJobRequest(body, now, outboundRules());
  // Written first, so the job's first run finds them; a create that fails after it leaves them written.
  await writeFlowLimits(tenantId, [parsed.fields.flowControl], now);
  // Quotas first (nothing is written for a refused request), secret headers sealed.
  const create = (jobId?: string) =>
    admittedCreate(tenantId, parsed, now, (fields, admission) =>
      createJobUseCase({ ...materializeDeps(), ids, admission }, tenantId, fields, now, jobId),
    );
  const { job, replayed } =
    key === undefined
      ? { job: await create(), replayed: false }
      : await createJobOnce(
          { createKeys: createKeyRepository(), jobs: jobRepository() },
          tenantId,
          { key, fingerprint: requestFingerprint(body) },
          ids.next(now),
          now,
          create,
        );
  logger.info(replayed ? 'job create replayed' : 'job created', {
    tenantId,
    jobId: job.jobId,
    nextFireAt: job.nextFireAt,
    replayed,
  });
  return json(201, jobView(job), {
    location: `/v1/jobs/${job.jobId}`,
    ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
  });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(createJob)
  .use(httpErrors())
  .use(quotaErrors())
  .use(bodyLimit(MAX_REQUEST_BODY_BYTES))
  .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
  .use(wellFormedBody())
  .use(validator({ eventSchema }));
