/**
 * GET /v1/jobs — the tenant's jobs in creation order, filtered by status, schedule type and name
 * prefix, each with a summary of its latest run.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { JOB_STATUSES } from '#core/model';
import type { JobListQuery } from '#core/ports';
import { listJobsWithLatestRuns } from '#core/use-cases/list-jobs';
import { jobView } from '#core/views';
import { logger } from '../logger.ts';
import { instrumented } from '../observability.ts';
import { jobRepository, runRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { QueryReader } from './query-params.ts';
import { JOB_LIST_QUERY, NAME_PREFIX_MAX_LENGTH, queryNames } from './query-schemas.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

const SCHEDULE_TYPES = ['once', 'interval', 'cron'] as const;

/** The listing's parameters, validated (400 naming every bad one). */
export function jobListQueryOf(event: APIGatewayProxyEvent): JobListQuery {
  const query = new QueryReader(event, queryNames(JOB_LIST_QUERY));
  const status = query.oneOf('status', JOB_STATUSES);
  const type = query.oneOf('type', SCHEDULE_TYPES);
  const name = query.text('name', NAME_PREFIX_MAX_LENGTH);
  const page = query.page();
  query.done();
  return {
    ...page,
    ...(status === undefined ? {} : { status }),
    ...(type === undefined ? {} : { type }),
    ...(name === undefined ? {} : { name }),
  };
}

export async function listJobs(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const page = await listJobsWithLatestRuns(
    { jobs: jobRepository(), runs: runRepository() },
    tenantId,
    jobListQueryOf(event),
    (jobId, error) =>
      logger.warn('latest run unread: the job is listed without it', { tenantId, jobId, error: String(error) }),
  );
  return json(200, {
    items: page.items.map(({ job, latestRun }) => jobView(job, latestRun)),
    cursor: page.cursor ?? null,
  });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(listJobs).use(httpErrors());
