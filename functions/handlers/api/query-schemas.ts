/**
 * The query strings of the listings, declared once: the handlers accept exactly these names
 * (QueryReader refuses any other), the route table carries them, and the OpenAPI document
 * (openapi/) describes them with these schemas. Enums come from the core's own constants.
 */
import { STATS_WINDOWS } from '#core/metrics/monitoring-stats';
import { TIMESERIES_WINDOWS } from '#core/metrics/monitoring-timeseries';
import { JOB_STATUSES } from '#core/model';
import { RUN_STATUSES } from '#core/run-state';
import { DEFAULT_PAGE_SIZE, MAX_CURSOR_LENGTH, MAX_PAGE_SIZE } from './page-query.ts';

export interface QueryParameter {
  name: string;
  description: string;
  /** JSON Schema of the value (every query value arrives as a string; integers are digits). */
  schema: Record<string, unknown>;
  /** Only the admin scope may send it; a tenant's request with it is a 400. */
  adminOnly?: boolean;
}

/** Longest `name` prefix GET /v1/jobs accepts (a job name is at most 200 characters). */
export const NAME_PREFIX_MAX_LENGTH = 200;
/** Longest `tenantId` the admin's stats query accepts. */
export const TENANT_ID_MAX_LENGTH = 128;

const PAGE: readonly QueryParameter[] = [
  {
    name: 'limit',
    description: `Items per page, 1 to ${MAX_PAGE_SIZE}`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  },
  {
    name: 'cursor',
    description: "The previous page's `cursor`, as it was given (opaque; only valid for the same listing)",
    schema: { type: 'string', minLength: 1, maxLength: MAX_CURSOR_LENGTH },
  },
];

export const JOB_LIST_QUERY: readonly QueryParameter[] = [
  { name: 'status', description: 'Only jobs in this status', schema: { type: 'string', enum: [...JOB_STATUSES] } },
  {
    name: 'type',
    description: 'Only jobs with this schedule type',
    schema: { type: 'string', enum: ['once', 'interval', 'cron'] },
  },
  {
    name: 'name',
    description: 'Only jobs whose name starts with this',
    schema: { type: 'string', minLength: 1, maxLength: NAME_PREFIX_MAX_LENGTH },
  },
  ...PAGE,
];

export const RUN_LIST_QUERY: readonly QueryParameter[] = [
  { name: 'status', description: 'Only runs in this status', schema: { type: 'string', enum: [...RUN_STATUSES] } },
  {
    name: 'from',
    description: 'Only runs scheduled at or after this instant (ISO-8601 with a zone)',
    schema: { type: 'string', format: 'date-time' },
  },
  {
    name: 'to',
    description: 'Only runs scheduled at or before this instant (ISO-8601 with a zone; not before `from`)',
    schema: { type: 'string', format: 'date-time' },
  },
  ...PAGE,
];

export const DEAD_LETTER_QUERY: readonly QueryParameter[] = PAGE;
export const WORKFLOW_RUN_LIST_QUERY: readonly QueryParameter[] = PAGE;

export const WORKFLOW_LIST_QUERY: readonly QueryParameter[] = PAGE;

export const STATS_QUERY: readonly QueryParameter[] = [
  {
    name: 'window',
    description: 'How far back the stats reach',
    schema: { type: 'string', enum: Object.keys(STATS_WINDOWS), default: '1h' },
  },
  {
    name: 'tenantId',
    description: "Admin scope only: this tenant's stats instead of all tenants'",
    schema: { type: 'string', minLength: 1, maxLength: TENANT_ID_MAX_LENGTH },
    adminOnly: true,
  },
];

export const TIMESERIES_QUERY: readonly QueryParameter[] = [
  {
    name: 'window',
    description: 'How far back the series reaches: 1h in one-minute points, 24h in 15-minute points',
    schema: { type: 'string', enum: Object.keys(TIMESERIES_WINDOWS), default: '1h' },
  },
  {
    name: 'tenantId',
    description: "Admin scope only: this tenant's series instead of all tenants'",
    schema: { type: 'string', minLength: 1, maxLength: TENANT_ID_MAX_LENGTH },
    adminOnly: true,
  },
];

export const HEALTH_QUERY: readonly QueryParameter[] = [
  {
    name: 'deep',
    description: 'With the admin token: the full check taken now, not the cached one (401 without it)',
    schema: { type: 'string', enum: ['true', 'false'] },
  },
];

/** The names a handler accepts; `admin` adds the admin-only ones. */
export function queryNames(parameters: readonly QueryParameter[], admin = false): string[] {
  return parameters.filter((p) => admin || !p.adminOnly).map((p) => p.name);
}
