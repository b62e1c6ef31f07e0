/**
 * Issue #22's answers of the contract, for the console's views before (and apart from) the backend:
 * Playwright's `page.route` sends job creates and edits on to the real local API without
 * `priority`/`flowControl` (which it does not know yet) and adds them back to what the API
 * answers, as the merged API will; runs gain `priority`, `flowControl` and `waitedMs`;
 * `GET /v1/flow-control/{key}` and the system view's `lanes` are served. Every body sent is kept.
 */
import type { FlowControlSettings, FlowControlState, Lanes, Priority } from '@chronos/client';
import type { Page, Route } from 'playwright-core';

export interface LaneFields {
  priority?: Priority;
  flowControl?: FlowControlSettings | null;
}

export interface LaneFixture {
  /** The JSON bodies of POST /v1/jobs and PATCH /v1/jobs/{id}, as the page sent them. */
  sent: { method: string; body: Record<string, unknown> }[];
  /** `METHOD path?query` of every call answered here. */
  calls: string[];
  /** The next create or edit is refused with this 400 detail (as the API names the field). */
  refuseNext?: { field: string; reason: string };
  /** Each job's #22 fields, as written by the page (or set by a test). */
  jobs: Map<string, LaneFields>;
  /** The runs' extra fields, by run id; `waitedMs` as the executor will write it. */
  runs: Map<string, LaneFields & { waitedMs?: number }>;
  /** GET /v1/flow-control/{key}: the state by (decoded) key; a key not here answers 404. */
  keys: Map<string, FlowControlState>;
  lanes?: Lanes;
  /** When set, GET /v1/dead-letters answers these runs (one page). */
  deadLetters?: Record<string, unknown>[];
}

const JOB_PATH = /^\/v1\/jobs\/([0-9A-Z]{26})$/;
const RUNS_PATH = /^\/v1\/jobs\/([0-9A-Z]{26})\/runs$/;
const KEY_PATH = /^\/v1\/flow-control\/([^/]+)$/;

const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

function withoutLanes(body: Record<string, unknown>): [Record<string, unknown>, LaneFields] {
  const { priority, flowControl, ...rest } = body;
  const lanes: LaneFields = {};
  if (priority !== undefined) lanes.priority = priority as Priority;
  if (flowControl !== undefined) lanes.flowControl = flowControl as FlowControlSettings | null;
  return [rest, lanes];
}

/** A job answer with its #22 fields: `priority` always (normal when never set). */
function jobWithLanes(job: Record<string, unknown>, lanes: LaneFields | undefined) {
  const { flowControl, priority } = lanes ?? {};
  return { ...job, priority: priority ?? 'normal', ...(flowControl ? { flowControl } : {}) };
}

export async function serveLaneFixtures(page: Page): Promise<LaneFixture> {
  const fixture: LaneFixture = { sent: [], calls: [], jobs: new Map(), runs: new Map(), keys: new Map() };

  await page.route(
    (url) => url.pathname.startsWith('/v1/'),
    async (route) => {
      try {
        await serve(route);
      } catch (error) {
        // A poll still in flight when the test closes its page (its answer disposed, its target
        // closed): nothing is waiting for it. Anything else is the fixture's own failure.
        if (!(page.isClosed() || /disposed|closed/i.test(String(error)))) throw error;
      }
    },
  );
  return fixture;

  async function serve(route: Route): Promise<void> {
    const request = route.request();
    const url = new URL(request.url());
    const method = request.method();
    const path = url.pathname;
    const writes = (method === 'POST' && path === '/v1/jobs') || (method === 'PATCH' && JOB_PATH.test(path));
    const readsJob = method === 'GET' && JOB_PATH.test(path);
    const readsRuns = method === 'GET' && RUNS_PATH.test(path);
    const readsKey = method === 'GET' && KEY_PATH.test(path);
    const readsSystem = method === 'GET' && path === '/v1/monitoring/system';
    const readsDeadLetters = method === 'GET' && path === '/v1/dead-letters' && fixture.deadLetters !== undefined;
    if (!(writes || readsJob || readsRuns || readsKey || readsSystem || readsDeadLetters)) return route.fallback();
    fixture.calls.push(`${method} ${path}${url.search}`);
    if (readsDeadLetters) return json(route, 200, { items: fixture.deadLetters, cursor: null });

    if (readsKey) {
      const key = decodeURIComponent(KEY_PATH.exec(path)?.[1] ?? '');
      const state = fixture.keys.get(key);
      if (state) return json(route, 200, state);
      return json(route, 404, { error: { code: 'NOT_FOUND', message: `No flow-control key ${key}`, details: [] } });
    }

    if (writes) {
      const body = JSON.parse(request.postData() ?? '{}') as Record<string, unknown>;
      fixture.sent.push({ method, body });
      if (fixture.refuseNext) {
        const detail = fixture.refuseNext;
        fixture.refuseNext = undefined;
        return json(route, 400, {
          error: { code: 'VALIDATION_FAILED', message: 'The request is invalid', details: [detail] },
        });
      }
      const [rest, lanes] = withoutLanes(body);
      // A PATCH of #22 fields only is nothing to the API today: the job as it is answers it.
      const onlyLanes = method === 'PATCH' && Object.keys(rest).length === 0;
      const response = await route.fetch(onlyLanes ? { method: 'GET' } : { postData: JSON.stringify(rest) });
      const answer = (await response.json()) as Record<string, unknown>;
      if (!response.ok()) return route.fulfill({ response, json: answer });
      const jobId = answer.jobId as string;
      const merged = { ...fixture.jobs.get(jobId), ...lanes };
      if (merged.flowControl === null) delete merged.flowControl;
      fixture.jobs.set(jobId, merged);
      return route.fulfill({ response, json: jobWithLanes(answer, merged) });
    }

    const response = await route.fetch();
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok()) return route.fulfill({ response, json: answer });
    if (readsJob) {
      return route.fulfill({ response, json: jobWithLanes(answer, fixture.jobs.get(answer.jobId as string)) });
    }
    if (readsRuns) {
      const items = (answer.items as Record<string, unknown>[]).map((run) => ({
        ...run,
        priority: 'normal',
        ...fixture.runs.get(run.runId as string),
      }));
      return route.fulfill({ response, json: { ...answer, items } });
    }
    return route.fulfill({ response, json: fixture.lanes ? { ...answer, lanes: fixture.lanes } : answer });
  }
}
