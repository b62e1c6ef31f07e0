/**
 * POST /v1/schedules/preview — the occurrences a schedule would fire at, computed by the scanner's
 * own schedule code, before any job exists (the CLI's `schedules preview`, the console's form).
 * Reads and writes nothing: a bad schedule is the 400 job creation would answer for it.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import { transpileSchema } from '@middy/validator/transpile';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type PreviewScheduleInput, previewSchedule } from '#core/use-cases/preview-schedule';
import asyncSettingsSchema from '#schemas/async-settings.json' with { type: 'json' };
import createJobSchema from '#schemas/create-job.json' with { type: 'json' };
import previewSchema from '#schemas/preview-schedule.json' with { type: 'json' };
import { instrumented } from '../observability.ts';
import { bodyLimit } from './body-limit.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { wellFormedBody } from './well-formed-body.ts';

/** A schedule object is a few hundred bytes; this leaves room and refuses anything else unread. */
const MAX_BODY_BYTES = 8 * 1024;
const eventSchema = transpileSchema(
  { type: 'object', required: ['body'], properties: { body: previewSchema } },
  // The schedule is create-job.json's own (`$ref: create-job.json#/properties/schedule`).
  {
    coerceTypes: false,
    useDefaults: false,
    schemas: { 'create-job.json': createJobSchema, 'async-settings.json': asyncSettingsSchema },
  },
);

export async function previewScheduleHandler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  // Tenant routes only: the admin scope is refused here as on every other tenant route.
  tenantOf(event);
  const occurrences = previewSchedule(event.body as unknown as PreviewScheduleInput, Date.now());
  return json(200, { occurrences: occurrences.map((at) => new Date(at).toISOString()) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(previewScheduleHandler)
  .use(httpErrors())
  .use(bodyLimit(MAX_BODY_BYTES))
  .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
  .use(wellFormedBody())
  .use(validator({ eventSchema }));
