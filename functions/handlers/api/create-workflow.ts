/**
 * POST /v1/workflows — validate, admit (as a job create: create rate, active-job quota, secret
 * headers sealed) and store a workflow: version 1's task items, then its head (through the job
 * creation path when it has a schedule). An optional `Idempotency-Key` makes retries safe exactly
 * as for POST /v1/jobs (core/use-cases/create-job-once.ts): the same key and body answer the
 * workflow the first request created (`Idempotent-Replayed: true`); another body, 422.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import { transpileSchema } from '@middy/validator/transpile';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ulidIds } from '#adapters/ulid-ids';
import { MAX_REQUEST_BODY_BYTES } from '#core/limits';
import type { Job } from '#core/model';
import { createJobOnce, requestFingerprint } from '#core/use-cases/create-job-once';
import { createWorkflow as createWorkflowUseCase } from '#core/use-cases/workflows/create-workflow';
import { tasksOf } from '#core/use-cases/workflows/read-workflows';
import { type CreateWorkflowInput, parseCreateWorkflow } from '#core/workflows/parse-workflow';
import type { WorkflowHead } from '#core/workflows/stored';
import { workflowIdOf } from '#core/workflows/workflow-ids';
import { workflowView } from '#core/workflows/workflow-view';
import asyncSettingsSchema from '#schemas/async-settings.json' with { type: 'json' };
import createJobSchema from '#schemas/create-job.json' with { type: 'json' };
import createWorkflowSchema from '#schemas/create-workflow.json' with { type: 'json' };
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { createKeyRepository, materializeDeps, outboundRules, workflowRepository } from '../wiring.ts';
import { bodyLimit } from './body-limit.ts';
import { writeFlowLimits } from './flow-control-limits.ts';
import { httpErrors } from './http-errors.ts';
import { idempotencyKeyOf } from './idempotency-key.ts';
import { etagOf } from './job-etag.ts';
import { quotaErrors } from './quota-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';
import { wellFormedBody } from './well-formed-body.ts';
import { admittedWorkflowCreate } from './workflow-admission.ts';

const ids = ulidIds();
const eventSchema = transpileSchema(
  { type: 'object', required: ['body'], properties: { body: createWorkflowSchema } },
  {
    coerceTypes: false,
    useDefaults: false,
    schemas: { 'create-job.json': createJobSchema, 'async-settings.json': asyncSettingsSchema },
  },
);

/**
 * The body's fingerprint for its Idempotency-Key: every task's secret header values left out
 * (only their names count), as a job's are, so no hash of a secret is stored in plain sight; and
 * marked as a workflow's, so a job's body can never match it.
 */
function workflowFingerprint(body: CreateWorkflowInput): string {
  const tasks = body.tasks.map((task) => {
    const secrets = task.target.secretHeaders;
    if (!secrets) return task;
    const names = Object.fromEntries(Object.keys(secrets).map((name) => [name, '***']));
    return { ...task, target: { ...task.target, secretHeaders: names } };
  });
  return requestFingerprint({ workflow: { ...body, tasks } });
}

export async function createWorkflow(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const key = idempotencyKeyOf(event);
  const now = Date.now();
  const body = event.body as unknown as CreateWorkflowInput;
  const fields = parseCreateWorkflow(body, now, outboundRules());
  // Written first, as a job create does (create-job.ts): its tasks' first runs find them.
  await writeFlowLimits(
    tenantId,
    fields.tasks.map((task) => task.flowControl),
    now,
  );
  const workflows = workflowRepository();
  const create = (workflowId: string) =>
    admittedWorkflowCreate(tenantId, fields, now, (definition, admission) =>
      createWorkflowUseCase({ ...materializeDeps(), workflows, admission }, tenantId, definition, now, workflowId),
    );
  const freshId = workflowIdOf(ids.next(now));
  const { job, replayed } =
    key === undefined
      ? { job: (await create(freshId)) as unknown as Job, replayed: false }
      : await createJobOnce(
          {
            createKeys: createKeyRepository(),
            // A key bound by a job create names no workflow: the workflow read finds nothing there.
            jobs: { get: async (tenant, id) => (await workflows.get(tenant, id)) as unknown as Job | undefined },
          },
          tenantId,
          { key, fingerprint: workflowFingerprint(body) },
          freshId,
          now,
          async (workflowId) => (await create(workflowId)) as unknown as Job,
        );
  const head = job as unknown as WorkflowHead;
  logger.info(replayed ? 'workflow create replayed' : 'workflow created', {
    tenantId,
    workflowId: head.jobId,
    tasks: head.graph.length,
    nextFireAt: head.nextFireAt,
    replayed,
  });
  return json(201, workflowView(head, await tasksOf(workflows, head)), {
    location: `/v1/workflows/${head.jobId}`,
    etag: etagOf(head),
    ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
  });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(createWorkflow)
  .use(httpErrors())
  .use(quotaErrors())
  .use(bodyLimit(MAX_REQUEST_BODY_BYTES))
  .use(httpJsonBodyParser({ disableContentTypeCheck: true }))
  .use(wellFormedBody())
  .use(validator({ eventSchema }));
