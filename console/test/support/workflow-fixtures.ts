/**
 * The workflow answers of the contract (issue #21), served to the page with Playwright's
 * `page.route` for `/v1/workflows*` and `/v1/workflow-runs/*`: the console's workflow views
 * tested before (and apart from) the API routes. Everything else goes to the real local API.
 * The fixture is stateful where the views must show a change (pause → PAUSED, a RUNNING run that
 * moves on between two reads) and records every call it answered.
 */
import type { Page, Route } from 'playwright-core';

export const WORKFLOW_ID = 'wf01JDXQ0000000000000000001';
export const FAILED_RUN_ID = `${WORKFLOW_ID}_1780000000000`;
export const RUNNING_RUN_ID = `${WORKFLOW_ID}_1780086400000`;
export const TRIGGERED_RUN_ID = `${WORKFLOW_ID}_1780090000000`;

const target = (path: string) => ({
  url: `https://etl.example.com/${path}`,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  secretHeaders: { authorization: '***' },
});
const retry = { maxAttempts: 3, initialDelaySeconds: 10, multiplier: 2, maxDelaySeconds: 300 };

/** The issue's example: a diamond (extract → clean, enrich → load) and a failure handler after load. */
const TASKS = [
  { key: 'extract', dependsOn: [], when: 'all_succeeded' },
  { key: 'clean', dependsOn: ['extract'], when: 'all_succeeded' },
  // Issue #22's task fields, passed through and shown with the task.
  {
    key: 'enrich',
    dependsOn: ['extract'],
    when: 'all_succeeded',
    priority: 'high',
    flowControl: { key: 'enrichment-api', parallelism: 3 },
  },
  { key: 'load', dependsOn: ['clean', 'enrich'], when: 'all_succeeded', input: 'upstream' },
  { key: 'page-oncall', dependsOn: ['load'], when: 'any_failed' },
] as const;
export const TASK_COUNT = TASKS.length;
export const DEPENDENCY_COUNT = TASKS.reduce((sum, task) => sum + task.dependsOn.length, 0);

function workflow(status: string) {
  return {
    workflowId: WORKFLOW_ID,
    name: 'nightly-etl',
    status,
    version: 2,
    schedule: { type: 'cron', expression: '0 2 * * *', timezone: 'Europe/Berlin' },
    misfire: 'fire_once',
    overlap: 'allow',
    onFailure: null,
    nextFireAt: '2026-11-26T01:00:00.000Z',
    createdAt: '2026-11-20T08:00:00.000Z',
    updatedAt: '2026-11-24T08:00:00.000Z',
    tasks: TASKS.map((task) => ({
      input: null,
      ...task,
      target: target(task.key),
      retry,
      timeoutSeconds: 30,
      delivery: 'at-least-once',
      async: null,
    })),
  };
}

const OTHERS = [
  {
    workflowId: 'wf01JDXQ0000000000000000002',
    name: 'on-demand-export',
    status: 'ACTIVE',
    version: 1,
    schedule: null,
    misfire: 'fire_once',
    overlap: 'allow',
    onFailure: null,
    nextFireAt: null,
    createdAt: '2026-11-21T08:00:00.000Z',
    updatedAt: '2026-11-21T08:00:00.000Z',
    taskCount: 2,
  },
  {
    workflowId: 'wf01JDXQ0000000000000000003',
    name: 'hourly-rollup',
    status: 'PAUSED',
    version: 4,
    schedule: { type: 'interval', everySeconds: 3_600 },
    misfire: 'skip',
    overlap: 'skip',
    onFailure: null,
    nextFireAt: null,
    createdAt: '2026-11-22T08:00:00.000Z',
    updatedAt: '2026-11-23T08:00:00.000Z',
    taskCount: 3,
  },
];

type TaskState = {
  status: string;
  runId?: string;
  attempt?: number;
  startedAt?: string;
  completedAt?: string;
  httpStatus?: number;
  errorType?: string;
  skippedReason?: string;
};

function runOf(workflowRunId: string, status: string, states: Record<string, TaskState>, round = 0) {
  const scheduledFor = new Date(Number(workflowRunId.split('_')[1])).toISOString();
  const ended = status !== 'RUNNING';
  return {
    workflowRunId,
    workflowId: WORKFLOW_ID,
    name: 'nightly-etl',
    status,
    version: 2,
    round,
    scheduledFor,
    startedAt: scheduledFor,
    completedAt: ended ? new Date(Date.parse(scheduledFor) + 95_000).toISOString() : null,
    cancelRequestedAt: null,
    triggered: workflowRunId !== FAILED_RUN_ID,
    tasks: TASKS.map((task) => {
      const state = states[task.key] ?? { status: 'PENDING' };
      return {
        key: task.key,
        dependsOn: [...task.dependsOn],
        when: task.when,
        status: state.status,
        runId: state.runId ?? null,
        attempt: state.attempt ?? null,
        startedAt: state.startedAt ?? null,
        completedAt: state.completedAt ?? null,
        httpStatus: state.httpStatus ?? null,
        errorType: state.errorType ?? null,
        skippedReason: state.skippedReason ?? null,
      };
    }),
  };
}

const called = (key: string, at: string, httpStatus: number, attempt = 1): TaskState => ({
  status: httpStatus < 400 ? 'SUCCEEDED' : 'FAILED',
  runId: `${WORKFLOW_ID}v2t${key}_${Date.parse(at)}_${attempt}`,
  attempt,
  startedAt: at,
  completedAt: new Date(Date.parse(at) + 1_500).toISOString(),
  httpStatus,
  ...(httpStatus >= 400 ? { errorType: 'HTTP_5XX' } : {}),
});

export const FAILED_RUN = runOf(FAILED_RUN_ID, 'FAILED', {
  extract: called('extract', '2026-05-28T20:26:40.000Z', 200),
  clean: called('clean', '2026-05-28T20:26:45.000Z', 200),
  enrich: called('enrich', '2026-05-28T20:26:45.000Z', 500, 3),
  load: { status: 'SKIPPED', skippedReason: 'enrich ended FAILED (load needs all_succeeded)' },
  'page-oncall': called('page-oncall', '2026-05-28T20:27:40.000Z', 200),
});

const RUNNING_BEFORE: Record<string, TaskState> = {
  extract: called('extract', '2026-05-29T20:26:40.000Z', 200),
  clean: {
    status: 'RUNNING',
    runId: `${WORKFLOW_ID}v2tclean_1780086400000_1`,
    attempt: 1,
    startedAt: '2026-05-29T20:26:45.000Z',
  },
  enrich: { status: 'QUEUED', runId: `${WORKFLOW_ID}v2tenrich_1780086400000_1`, attempt: 1 },
};
const RUNNING_AFTER: Record<string, TaskState> = {
  ...RUNNING_BEFORE,
  clean: called('clean', '2026-05-29T20:26:45.000Z', 200),
};

function counts(run: { tasks: { status: string }[] }) {
  const taskCounts: Record<string, number> = {};
  for (const task of run.tasks) taskCounts[task.status] = (taskCounts[task.status] ?? 0) + 1;
  return taskCounts;
}

export interface WorkflowFixture {
  /** Every call answered, as `METHOD /path?query`. */
  calls: string[];
  /** What GET /v1/workflows answers: the list, nothing, or a 500. */
  listMode: 'items' | 'empty' | 'error';
}

const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
const refusal = (route: Route, status: number, code: string, message: string) =>
  json(route, status, { error: { code, message, details: [] } });

/** Answers the workflow routes on this page from the fixtures above. */
export async function serveWorkflowFixtures(page: Page): Promise<WorkflowFixture> {
  const fixture: WorkflowFixture = { calls: [], listMode: 'items' };
  let status = 'ACTIVE';
  let runningReads = 0;
  await page.route(
    (url) => url.pathname.startsWith('/v1/workflows') || url.pathname.startsWith('/v1/workflow-runs/'),
    async (route) => {
      const request = route.request();
      const url = new URL(request.url());
      const method = request.method();
      fixture.calls.push(`${method} ${url.pathname}${url.search}`);
      const path = url.pathname;
      if (method === 'GET' && path === '/v1/workflows') {
        if (fixture.listMode === 'error') return refusal(route, 500, 'INTERNAL', 'Something broke on our side');
        if (fixture.listMode === 'empty') return json(route, 200, { items: [] });
        const { tasks, ...head } = workflow(status);
        const first = { items: [{ ...head, taskCount: tasks.length }, OTHERS[0]], cursor: 'page-2' };
        return json(route, 200, url.searchParams.get('cursor') === 'page-2' ? { items: [OTHERS[1]] } : first);
      }
      if (path === `/v1/workflows/${WORKFLOW_ID}`) {
        if (method === 'DELETE') {
          status = 'CANCELLED';
          return json(route, 200, workflow(status));
        }
        return json(route, 200, workflow(status));
      }
      if (method === 'POST' && path === `/v1/workflows/${WORKFLOW_ID}/pause`) {
        status = 'PAUSED';
        return json(route, 200, workflow(status));
      }
      if (method === 'POST' && path === `/v1/workflows/${WORKFLOW_ID}/resume`) {
        status = 'ACTIVE';
        return json(route, 200, workflow(status));
      }
      if (method === 'POST' && path === `/v1/workflows/${WORKFLOW_ID}/trigger`) {
        return json(route, 202, { workflowRunId: TRIGGERED_RUN_ID });
      }
      if (method === 'GET' && path === `/v1/workflows/${WORKFLOW_ID}/runs`) {
        const running = runOf(RUNNING_RUN_ID, 'RUNNING', RUNNING_BEFORE);
        const items = [running, FAILED_RUN].map(({ tasks, ...head }) => ({ ...head, taskCounts: counts({ tasks }) }));
        return json(route, 200, { items });
      }
      if (method === 'GET' && path === `/v1/workflow-runs/${FAILED_RUN_ID}`) return json(route, 200, FAILED_RUN);
      if (method === 'GET' && path === `/v1/workflow-runs/${RUNNING_RUN_ID}`) {
        // The first read shows clean RUNNING; every later one shows it SUCCEEDED (the page must re-read).
        runningReads += 1;
        return json(route, 200, runOf(RUNNING_RUN_ID, 'RUNNING', runningReads === 1 ? RUNNING_BEFORE : RUNNING_AFTER));
      }
      if (method === 'POST' && path === `/v1/workflow-runs/${FAILED_RUN_ID}/retry`) {
        return json(route, 202, { workflowRunId: FAILED_RUN_ID, round: 1 });
      }
      if (method === 'POST' && path === `/v1/workflow-runs/${RUNNING_RUN_ID}/cancel`) {
        return refusal(route, 409, 'CONFLICT', 'The workflow run has already ended');
      }
      return refusal(route, 404, 'NOT_FOUND', `No fixture for ${method} ${path}`);
    },
  );
  return fixture;
}
