/**
 * The workflow case of the chaos run (issue 21): diamonds (the issue's nightly-etl shape:
 * extract -> clean, enrich -> load with `input: "upstream"` -> page-oncall `any_failed`) and
 * fan-outs (`fanWidth` parallel tasks -> merge), created through the API process at the start and
 * each triggered a few times through it during the chaos window. Every task takes the workload's
 * retry policy and timeout, and calls the faulty target under `/wf/<workflow>/<task>`, so its runs
 * meet the same faults as the jobs' (decided by run id).
 *
 * The API process is killed during the run: a create or a trigger that got no answer is sent
 * again with the same Idempotency-Key until it is answered, so a workflow is never created twice
 * and a trigger never starts two workflow runs (the checks count them). Every try is recorded.
 * A trigger answered 202 names its workflow run; a task's runs are then known in advance, as a
 * job's occurrences are: `<workflowId>v1t<index>` at the workflow run's occurrence (round 0).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosConfig } from './chaos-config.ts';
import { WORKFLOW_PATH } from './chaos-target.ts';
import { type ApiClient, call } from './workload-api.ts';

export type TaskRule = 'all_succeeded' | 'any_failed';

export interface WorkflowTaskPlan {
  key: string;
  dependsOn: string[];
  when: TaskRule;
  input?: 'upstream';
}

export interface WorkflowTrigger {
  /** When to trigger, from the workload start. */
  atMs: number;
  /** Every answer (a status, `202 replayed`) or connection error, in order. */
  tries: string[];
  /** The workflow run the 202 named. */
  workflowRunId?: string;
  /** Why the trigger failed for good. */
  error?: string;
}

export interface WorkflowCase {
  /** Unique: the workflow's `name`. */
  name: string;
  shape: 'diamond' | 'fan';
  /** In definition order: task i is the item `<workflowId>v1t<i>`. */
  tasks: WorkflowTaskPlan[];
  workflowId?: string;
  createTries: string[];
  createError?: string;
  triggers: WorkflowTrigger[];
}

/** The tasks' own request body: `load` must get it back under `body`. */
export const ownBodyOf = (key: string) => ({ task: key });

const diamondTasks = (): WorkflowTaskPlan[] => [
  { key: 'extract', dependsOn: [], when: 'all_succeeded' },
  { key: 'clean', dependsOn: ['extract'], when: 'all_succeeded' },
  { key: 'enrich', dependsOn: ['extract'], when: 'all_succeeded' },
  { key: 'load', dependsOn: ['clean', 'enrich'], when: 'all_succeeded', input: 'upstream' },
  { key: 'page-oncall', dependsOn: ['load'], when: 'any_failed' },
];

const fanTasks = (width: number): WorkflowTaskPlan[] => {
  const shards = Array.from(
    { length: width },
    (_, i): WorkflowTaskPlan => ({ key: `shard-${i}`, dependsOn: [], when: 'all_succeeded' }),
  );
  return [...shards, { key: 'merge', dependsOn: shards.map((shard) => shard.key), when: 'all_succeeded' }];
};

/**
 * Every workflow of the run with its trigger times, spread evenly over the trigger window (no
 * draw from the seeded sequence: the rest of the workload stays as it was without them).
 */
export function planWorkflows(config: ChaosConfig): WorkflowCase[] {
  const cases: WorkflowCase[] = [
    ...Array.from({ length: config.diamondWorkflows }, (_, i) => ({
      name: `chaos-wf-diamond-${i}`,
      shape: 'diamond' as const,
      tasks: diamondTasks(),
    })),
    ...Array.from({ length: config.fanWorkflows }, (_, i) => ({
      name: `chaos-wf-fan-${i}`,
      shape: 'fan' as const,
      tasks: fanTasks(config.fanWidth),
    })),
  ].map((plan) => ({ ...plan, createTries: [], triggers: [] as WorkflowTrigger[] }));
  const [from, to] = config.workflowTriggerWindowMs;
  const slots = cases.length * config.workflowTriggers;
  cases.forEach((plan, i) => {
    for (let k = 0; k < config.workflowTriggers; k++) {
      const slot = k * cases.length + i;
      plan.triggers.push({ atMs: Math.round(from + ((to - from) * slot) / Math.max(1, slots - 1)), tries: [] });
    }
  });
  return cases;
}

/** The POST /v1/workflows body of a case. */
export function workflowBody(plan: WorkflowCase, config: ChaosConfig, targetUrl: (path: string) => string) {
  return {
    name: plan.name,
    tasks: plan.tasks.map((task) => ({
      key: task.key,
      target: {
        url: targetUrl(`${WORKFLOW_PATH}${plan.name}/${task.key}`),
        method: 'POST',
        body: ownBodyOf(task.key),
      },
      ...(task.dependsOn.length > 0 ? { dependsOn: task.dependsOn } : {}),
      ...(task.when === 'all_succeeded' ? {} : { when: task.when }),
      ...(task.input ? { input: task.input } : {}),
      retry: config.retry,
      timeoutSeconds: config.timeoutSeconds,
    })),
  };
}

/** As the job creates (workload-api.ts): a dead API is waited for this long. */
const PATIENCE_MS = 120_000;
const RETRY_PAUSE_MS = 250;

/**
 * Sends one request (same key, same body) until it is answered with a status other than a 5xx
 * or 429, or PATIENCE_MS passed. Records every try; returns the last answer's body and status.
 */
async function untilAnswered(
  api: ApiClient,
  path: string,
  body: unknown,
  key: string,
  tries: string[],
): Promise<{ status: number; body: unknown } | { error: string }> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const answer = await call(api, 'POST', path, body, key);
    if ('status' in answer) {
      tries.push(answer.replayed ? `${answer.status} replayed` : String(answer.status));
      if (answer.status < 500 && answer.status !== 429) return answer;
    } else tries.push(answer.error);
    if (Date.now() > deadline) return { error: `gave up after ${tries.length} tries: ${tries.join(', ')}` };
    await sleep(RETRY_PAUSE_MS);
  }
}

/** Creates the workflow of `plan` through the API; sets its workflowId, or its createError. */
export async function createWorkflowThroughApi(
  api: ApiClient,
  plan: WorkflowCase,
  config: ChaosConfig,
  targetUrl: (path: string) => string,
): Promise<void> {
  const answer = await untilAnswered(
    api,
    '/v1/workflows',
    workflowBody(plan, config, targetUrl),
    `chaos-workflow:${plan.name}`,
    plan.createTries,
  );
  if ('status' in answer && answer.status === 201) plan.workflowId = (answer.body as { workflowId: string }).workflowId;
  else plan.createError = 'error' in answer ? answer.error : `${answer.status} ${JSON.stringify(answer.body)}`;
}

/** Triggers the workflow of `plan` once (its trigger `k`); sets the trigger's workflowRunId, or its error. */
export async function triggerThroughApi(api: ApiClient, plan: WorkflowCase, k: number): Promise<void> {
  const trigger = plan.triggers[k] as WorkflowTrigger;
  if (!plan.workflowId) {
    trigger.error = 'its workflow was never created';
    return;
  }
  const answer = await untilAnswered(
    api,
    `/v1/workflows/${plan.workflowId}/trigger`,
    undefined,
    `chaos-trigger:${plan.name}:${k}`,
    trigger.tries,
  );
  if ('status' in answer && answer.status === 202)
    trigger.workflowRunId = (answer.body as { workflowRunId: string }).workflowRunId;
  else trigger.error = 'error' in answer ? answer.error : `${answer.status} ${JSON.stringify(answer.body)}`;
}

/**
 * Creates every workflow at the start, then triggers each at its planned time; resolves when
 * every trigger has been answered (or has failed for good).
 */
export async function feedWorkflows(
  api: ApiClient,
  cases: WorkflowCase[],
  config: ChaosConfig,
  targetUrl: (path: string) => string,
  start: number,
): Promise<void> {
  await Promise.all(cases.map((plan) => createWorkflowThroughApi(api, plan, config, targetUrl)));
  await Promise.all(
    cases.flatMap((plan) =>
      plan.triggers.map(async (trigger, k) => {
        await sleep(start + trigger.atMs - Date.now());
        await triggerThroughApi(api, plan, k);
      }),
    ),
  );
}
