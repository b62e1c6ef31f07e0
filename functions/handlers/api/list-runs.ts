/** GET /v1/jobs/{id}/runs — the job's runs, newest first, one page at a time, filtered by status and time. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { RunListQuery } from '#core/ports';
import { RUN_STATUSES } from '#core/run-state';
import { listRuns as listRunsUseCase } from '#core/use-cases/read-jobs';
import { runView } from '#core/views';
import { instrumented } from '../observability.ts';
import { jobRepository, runRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { jobIdOf } from './path-id.ts';
import { QueryReader } from './query-params.ts';
import { queryNames, RUN_LIST_QUERY } from './query-schemas.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

/** `status`, `from`, `to` (scheduled time, inclusive, zoned ISO-8601), `limit`, `cursor`; 400 naming every bad one. */
export function runListQueryOf(event: APIGatewayProxyEvent): RunListQuery {
  const query = new QueryReader(event, queryNames(RUN_LIST_QUERY));
  const status = query.oneOf('status', RUN_STATUSES);
  const from = query.instant('from');
  const to = query.instant('to');
  if (from !== undefined && to !== undefined && to < from) query.fail('to', 'must not be before from');
  const page = query.page();
  query.done();
  return {
    ...page,
    ...(status === undefined ? {} : { status }),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  };
}

export async function listRuns(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const jobId = jobIdOf(event);
  const query = runListQueryOf(event);
  const page = await listRunsUseCase({ jobs: jobRepository(), runs: runRepository() }, tenantId, jobId, query);
  const sla = page.job.slaSeconds;
  return json(200, { items: page.items.map((run) => runView(run, sla)), cursor: page.cursor ?? null });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(listRuns).use(httpErrors());
