/**
 * PATCH /v1/workflows/{id} — change a workflow's name, schedule (null: trigger-only), misfire,
 * overlap or onFailure (null removes it), or its tasks (the whole list again: a new version; runs
 * in flight keep theirs). `If-Match` is required and checked as for PATCH /v1/jobs/{id}: without
 * it 428, naming another version 409. The answer carries the new ETag.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import { transpileSchema } from '@middy/validator/transpile';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { definitionVersionOf } from '#core/definition-version';
import { MAX_REQUEST_BODY_BYTES } from '#core/limits';
import { tasksOf } from '#core/use-cases/workflows/read-workflows';
import { updateWorkflow as updateWorkflowUseCase } from '#core/use-cases/workflows/update-workflow';
import { parseUpdateWorkflow, type UpdateWorkflowInput } from '#core/workflows/parse-workflow';
import { workflowView } from '#core/workflows/workflow-view';
import asyncSettingsSchema from '#schemas/async-settings.json' with { type: 'json' };
import createJobSchema from '#schemas/create-job.json' with { type: 'json' };
import createWorkflowSchema from '#schemas/create-workflow.json' with { type: 'json' };
import updateWorkflowSchema from '#schemas/update-workflow.json' with { type: 'json' };
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { materializeDeps, outboundRules, workflowRepository } from '../wiring.ts';
import { bodyLimit } from './body-limit.ts';
import { writeFlowLimits } from './flow-control-limits.ts';
import { httpErrors } from './http-errors.ts';
import { runMeterOf } from './job-admission.ts';
import { etagOf, ifMatchVersionOf } from './job-etag.ts';
import { quotaErrors } from './quota-errors.ts';
import { errorResponse, json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { wellFormedBody } from './well-formed-body.ts';
import { admittedWorkflowChange } from './workflow-admission.ts';
import { workflowIdOf } from './workflow-path-id.ts';

const eventSchema = transpileSchema(
  { type: 'object', required: ['body'], properties: { body: updateWorkflowSchema } },
  {
    coerceTypes: false,
    useDefaults: false,
    schemas: {
      'create-job.json': createJobSchema,
      'create-workflow.json': createWorkflowSchema,
      'async-settings.json': asyncSettingsSchema,
    },
  },
);

export async function updateWorkflow(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const workflowId = workflowIdOf(event);
  const expectedVersion = ifMatchVersionOf(event);
  if (expectedVersion === undefined) {
    return errorResponse(428, 'PRECONDITION_REQUIRED', 'Send If-Match with the workflow version (its ETag)', [
      { field: 'If-Match', reason: 'is required' },
    ]);
  }
  const now = Date.now();
  const parsed = parseUpdateWorkflow(event.body as unknown as UpdateWorkflowInput, now, outboundRules());
  // The tenant's body quotas (minimum interval, payload sizes); secret headers sealed.
  const change = await admittedWorkflowChange(tenantId, parsed);
  const workflows = workflowRepository();
  const head = await updateWorkflowUseCase(
    { ...materializeDeps(), workflows },
    tenantId,
    workflowId,
    change,
    expectedVersion,
    now,
    runMeterOf(tenantId, now),
  );
  await writeFlowLimits(
    tenantId,
    (parsed.tasks ?? []).map((task) => task.flowControl),
    now,
  );
  logger.info('workflow updated', {
    tenantId,
    workflowId,
    version: definitionVersionOf(head),
    fields: Object.keys(change),
  });
  return json(200, workflowView(head, await tasksOf(workflows, head)), { etag: etagOf(head) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(updateWorkflow)
  .use(httpErrors())
  .use(quotaErrors())
  .use(bodyLimit(MAX_REQUEST_BODY_BYTES))
  .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
  .use(wellFormedBody())
  .use(validator({ eventSchema }));
