/**
 * Issue #22's fields and route (priority lanes and flow control per key), typed by hand from the
 * shared contract while the backend is merged apart from the clients. When the lead regenerates
 * the types with the backend in (`npm run openapi && npm run client:types`), schema.ts has them:
 * then each type here becomes an alias of the generated one (`components['schemas'][...]`) and
 * `LanesPaths` goes (its route is in the generated `paths`).
 */
import type { components } from './schema.ts';

/** A run's lane: each has its own dispatch queue and executor capacity. Absent means `normal`. */
export type Priority = 'high' | 'normal' | 'low';
export const PRIORITIES: readonly Priority[] = ['high', 'normal', 'low'];

/**
 * `flowControl` on a job or workflow task: every run of the tenant naming `key` shares the limits
 * (key 1–128 characters, ratePerSecond 0.01–10000, parallelism 1–10000, at least one limit).
 */
export interface FlowControlSettings {
  key: string;
  ratePerSecond?: number;
  parallelism?: number;
}

/** The contract's bounds of `flowControl`, for checks before a call (the API's answer still rules). */
export const FLOW_CONTROL_BOUNDS = {
  keyLength: { min: 1, max: 128 },
  ratePerSecond: { min: 0.01, max: 10_000 },
  parallelism: { min: 1, max: 10_000 },
} as const;

/** GET /v1/flow-control/{key}: the key's limits (the ones a job or task wrote last) and its runs now. */
export interface FlowControlState {
  key: string;
  ratePerSecond?: number;
  parallelism?: number;
  /** Runs of the key whose call is in flight (holding a parallelism slot). */
  inFlight: number;
  /** Runs of the key delayed for its limits, not started yet. */
  waiting: number;
  updatedAt: string;
}

/** The fields #22 adds to job requests (create, PATCH) and workflow tasks. */
export interface LaneRequestFields {
  priority?: Priority;
  /** On PATCH, null takes the job's flow control away. */
  flowControl?: FlowControlSettings | null;
}

/** The fields #22 adds to job answers: `priority` always there (`normal` when never set). */
export interface JobLaneFields {
  priority?: Priority;
  flowControl?: FlowControlSettings | null;
}

/** The fields #22 adds to run answers: `waitedMs` once the run waited for its key's limits. */
export interface RunLaneFields {
  priority?: Priority;
  flowControl?: FlowControlSettings | null;
  waitedMs?: number;
}

type System = components['schemas']['MonitoringSystem'];
/** One lane's queues in GET /v1/monitoring/system (the shapes of the top-level dispatchQueue/deadLetterQueue). */
export interface LaneQueues {
  dispatchQueue: System['dispatchQueue'];
  deadLetterQueue: System['deadLetterQueue'];
}
/** `lanes` of GET /v1/monitoring/system; the top-level queues stay the normal lane's. */
export type Lanes = Record<Priority, LaneQueues>;

type ErrorAnswer = components['responses']['Error'];

/** GET /v1/flow-control/{key} in openapi-fetch's `paths` shape, until the generated paths have it. */
export interface LanesPaths {
  '/v1/flow-control/{key}': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: { query?: never; header?: never; path: { key: string }; cookie?: never };
      requestBody?: never;
      responses: {
        200: { headers: { [name: string]: unknown }; content: { 'application/json': FlowControlState } };
        401: components['responses']['Unauthorized'];
        404: components['responses']['NotFound'];
        default: ErrorAnswer;
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
