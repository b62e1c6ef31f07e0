/**
 * The workflow checks on small hand-made histories: each passes on a clean history (a diamond
 * that succeeded, one whose `enrich` failed for good, a fan-out that fanned in and one whose shard
 * failed for good) and fails on the violation it exists to catch.
 */
import { describe, expect, it } from 'vitest';
import { chaosConfig } from './chaos-config.ts';
import type { Fault, TargetCall } from './chaos-target.ts';
import { checkOccurrencesTerminal, checkRecordsMatchTarget } from './checks.ts';
import {
  checkCompletionKilledMidStep,
  checkTaskOrder,
  checkTasksStartedOnce,
  checkUpstreamInput,
  checkWorkflowRunStates,
  checkWorkflowRunsEnded,
  runWorkflowChecks,
  withWorkflowTasks,
} from './checks-workflows.ts';
import { designOf, type Evidence, type StoredRun, type StoredWorkflowRun } from './evidence.ts';
import type { Kill } from './fleet.ts';
import { ownBodyOf, planWorkflows, type WorkflowCase } from './workload-workflows.ts';

const config = chaosConfig({ scale: 1, diamondWorkflows: 1, fanWorkflows: 1, fanWidth: 3, workflowTriggers: 2 });
const T = 1_700_000_000_000;

/** What one task did in a hand-made workflow run: the faults of its attempts (none: succeeded at once), or skipped. */
type TaskScript = Fault[] | 'skip';

/**
 * Builds the runs, calls and stored workflow run of one workflow run in which each task behaves
 * as `script` says (tasks in definition order, each started 100 ms after its dependencies ended).
 */
function workflowRun(
  workflow: WorkflowCase,
  k: number,
  script: Record<string, TaskScript>,
): { runs: StoredRun[]; calls: TargetCall[]; stored: StoredWorkflowRun } {
  const workflowId = workflow.workflowId as string;
  const scheduledFor = T + k * 60_000;
  const workflowRunId = `${workflowId}_${scheduledFor}`;
  const runs: StoredRun[] = [];
  const calls: TargetCall[] = [];
  const ended = new Map<string, { at: number; status: string; last?: StoredRun }>();
  const tasks: StoredWorkflowRun['tasks'] = {};
  let failed = false;
  workflow.tasks.forEach((task, index) => {
    const taskJobId = `${workflowId}v1t${index}`;
    const ready = Math.max(scheduledFor, ...task.dependsOn.map((dep) => ended.get(dep)?.at ?? 0)) + 100;
    const faults = script[task.key] ?? ['none'];
    if (faults === 'skip') {
      ended.set(task.key, { at: ready, status: 'SKIPPED' });
      tasks[task.key] = { status: 'SKIPPED', skippedReason: 'a dependency failed; rule can no longer hold' };
      return;
    }
    let at = ready;
    faults.forEach((fault, i) => {
      const attempt = i + 1;
      const runId = `${taskJobId}_${scheduledFor}_${attempt}`;
      const status = fault === 'none' ? 'SUCCEEDED' : 'FAILED';
      const last = attempt === faults.length;
      const completedAt = at + 50;
      const run: StoredRun = {
        runId,
        jobId: taskJobId,
        scheduledFor,
        attempt,
        status,
        createdAt: at,
        availableAt: at,
        completedAt,
        ...(fault === 'none' ? { httpStatus: 200 } : { httpStatus: 500, errorType: 'http_5xx' }),
        ...(last ? {} : { nextAttemptAt: completedAt + 500 }),
        workflowRunId,
        taskKey: task.key,
      };
      runs.push(run);
      const upstream = Object.fromEntries(
        task.dependsOn.map((dep) => {
          const parent = ended.get(dep);
          return [dep, { status: parent?.status, httpStatus: parent?.last?.httpStatus, responseExcerpt: 'ok' }];
        }),
      );
      calls.push({
        at: at + 10,
        path: `/wf/${workflow.name}/${task.key}`,
        idempotencyKey: `${taskJobId}:${scheduledFor}`,
        runId,
        attempt,
        fault,
        callerHungUp: false,
        body: JSON.stringify(task.input ? { body: ownBodyOf(task.key), upstream } : ownBodyOf(task.key)),
      });
      if (last) {
        ended.set(task.key, { at: completedAt, status, last: run });
        tasks[task.key] = { status, runId, attempt, completedAt, httpStatus: run.httpStatus };
        if (status !== 'SUCCEEDED') failed = true;
      }
      at = completedAt + 500;
    });
  });
  const stored: StoredWorkflowRun = {
    workflowRunId,
    workflowId,
    scheduledFor,
    status: failed ? 'FAILED' : 'SUCCEEDED',
    round: 0,
    version: 1,
    tasks,
    graph: [],
  };
  return { runs, calls, stored };
}

const FAILED_FOR_GOOD: Fault[] = ['http500', 'http500', 'http500'];

/** Two workflows, each run twice: one clean run and one with a task failed for good. */
function history(): Evidence {
  const [diamond, fan] = planWorkflows(config) as [WorkflowCase, WorkflowCase];
  diamond.workflowId = 'wf01DIAMOND';
  fan.workflowId = 'wf01FAN';
  const parts = [
    workflowRun(diamond, 0, { enrich: ['http500', 'none'], 'page-oncall': 'skip' }),
    workflowRun(diamond, 1, { enrich: FAILED_FOR_GOOD, load: 'skip' }),
    workflowRun(fan, 2, {}),
    workflowRun(fan, 3, { 'shard-1': FAILED_FOR_GOOD, merge: 'skip' }),
  ];
  [diamond, fan].forEach((workflow, w) => {
    workflow.createTries = ['201'];
    workflow.triggers.forEach((trigger, k) => {
      trigger.tries = ['202'];
      trigger.workflowRunId = parts[w * 2 + k]?.stored.workflowRunId;
    });
  });
  const stepRun = parts[0]?.runs.find((run) => run.taskKey === 'load') as StoredRun;
  // The fan's second run was triggered by a request the API died in: its retry was answered.
  const extract = parts[3]?.runs.find((run) => run.taskKey === 'shard-0') as StoredRun;
  (fan.triggers[1] as WorkflowCase['triggers'][number]).tries = ['UND_ERR_SOCKET', 'ECONNREFUSED', '202 replayed'];
  const kill: Kill = {
    at: (stepRun.createdAt as number) + 1,
    role: 'completion',
    slot: 0,
    pid: 1,
    heldRunIds: [parts[0]?.runs.find((run) => run.taskKey === 'enrich' && run.attempt === 2)?.runId as string],
    scanInProgress: false,
    reason: 'mid-step',
  };
  return {
    plans: [],
    retry: config.retry,
    jobs: [],
    runs: parts.flatMap((part) => part.runs),
    calls: parts.flatMap((part) => part.calls),
    kills: [kill, { ...kill, role: 'api', reason: 'mid-trigger', heldRunIds: [] }],
    design: designOf(config),
    visibilityTimeoutMs: 10_000,
    workflows: [diamond, fan],
    workflowRuns: parts.map((part) => part.stored),
    stepHolds: [{ taskRunId: stepRun.runId, batchRunIds: kill.heldRunIds }],
    triggerHolds: [{ taskRunId: extract.runId, sentRunIds: [extract.runId] }],
  };
}

const storedRun = (evidence: Evidence, i: number) =>
  (evidence.workflowRuns as StoredWorkflowRun[])[i] as StoredWorkflowRun;
const runOf = (evidence: Evidence, i: number, key: string, attempt = 1) =>
  evidence.runs.find(
    (run) =>
      run.workflowRunId === storedRun(evidence, i).workflowRunId && run.taskKey === key && run.attempt === attempt,
  ) as StoredRun;
const failuresOf = (evidence: Evidence) =>
  runWorkflowChecks(evidence)
    .filter((result) => !result.ok)
    .map((result) => result.name);

describe('the workflow checks', () => {
  it('pass on a clean history, and the common checks see the task runs as planned occurrences', () => {
    const evidence = history();
    expect(runWorkflowChecks(evidence).map((result) => [result.name, result.ok, result.failures])).toEqual(
      runWorkflowChecks(evidence).map((result) => [result.name, true, []]),
    );
    const planned = withWorkflowTasks(evidence);
    const terminal = checkOccurrencesTerminal(planned);
    expect(terminal.failures).toEqual([]);
    // 4 + 4 tasks of the diamonds' runs (page-oncall skipped in one, load in the other), 4 + 3 of the fans'.
    expect(terminal.numbers).toMatch(/^15\/15 occurrences terminal/);
    expect(checkRecordsMatchTarget(planned).failures).toEqual([]);
  });

  it('fail when a workflow run is still RUNNING, was never stored, or a trigger made a second one', () => {
    const running = history();
    storedRun(running, 2).status = 'RUNNING';
    expect(checkWorkflowRunsEnded(running).ok).toBe(false);
    const missing = history();
    missing.workflowRuns = missing.workflowRuns?.slice(1);
    expect(checkWorkflowRunsEnded(missing).ok).toBe(false);
    const doubled = history();
    doubled.workflowRuns?.push({
      ...storedRun(doubled, 0),
      workflowRunId: `wf01DIAMOND_${T + 1}`,
      scheduledFor: T + 1,
    });
    expect(checkWorkflowRunsEnded(doubled).failures.join()).toMatch(/UNPLANNED workflow run/);
    const unanswered = history();
    const trigger = unanswered.workflows?.[0]?.triggers[0];
    if (trigger) trigger.workflowRunId = undefined;
    expect(checkWorkflowRunsEnded(unanswered).ok).toBe(false);
  });

  it('fail when the API was never killed in a trigger, or the killed trigger was not answered with its run', () => {
    const never = history();
    never.kills = never.kills.filter((kill) => kill.role !== 'api');
    expect(checkWorkflowRunsEnded(never).failures).toEqual(['the API was never killed in a trigger']);
    const lost = history();
    (lost.workflows?.[1]?.triggers[1] as WorkflowCase['triggers'][number]).tries = ['UND_ERR_SOCKET', '202'];
    expect(checkWorkflowRunsEnded(lost).failures.join()).toMatch(/no retry was answered with it/);
    const open = history();
    const hold = open.triggerHolds?.[0];
    const sent = open.runs.find((run) => run.runId === hold?.taskRunId) as StoredRun;
    sent.status = 'QUEUED';
    expect(checkWorkflowRunsEnded(open).failures.join()).toMatch(/sent by the killed trigger, QUEUED/);
  });

  it('fail when the fan-in starts although a parent failed for good, or twice, or never after all succeeded', () => {
    const early = history();
    const merge = runOf(early, 2, 'merge');
    early.runs.push({ ...merge, runId: `${merge.jobId}_${T + 3 * 60_000}_1`, scheduledFor: T + 3 * 60_000 });
    expect(checkTasksStartedOnce(early).ok).toBe(false);
    expect(checkOccurrencesTerminal(withWorkflowTasks(early)).failures.join()).toMatch(/UNPLANNED/);

    const outside = history();
    outside.runs.push({ ...merge, runId: `${merge.jobId}_${T + 2 * 60_000 + 7}_1`, scheduledFor: T + 2 * 60_000 + 7 });
    expect(checkTasksStartedOnce(outside).failures.join()).toMatch(/in no round/);

    const never = history();
    never.runs = never.runs.filter((run) => run !== runOf(never, 2, 'merge'));
    expect(checkTasksStartedOnce(never).ok).toBe(false);
    expect(checkOccurrencesTerminal(withWorkflowTasks(never)).failures.join()).toMatch(/LOST chaos-wf-fan-0\/merge/);
  });

  it('fail when the skipped alarm was called, or a skipped task has a run', () => {
    const called = history();
    const load = runOf(called, 0, 'load');
    called.calls.push({
      at: (load.completedAt as number) + 10,
      path: '/wf/chaos-wf-diamond-0/page-oncall',
      idempotencyKey: 'x',
      runId: `wf01DIAMONDv1t4_${T}_1`,
      attempt: 1,
      fault: 'none',
      callerHungUp: false,
    });
    expect(checkTasksStartedOnce(called).failures.join()).toMatch(/page-oncall: called 1 time\(s\) although skipped/);
    const ran = history();
    ran.runs.push({
      ...runOf(ran, 0, 'load'),
      runId: `wf01DIAMONDv1t4_${T}_1`,
      jobId: 'wf01DIAMONDv1t4',
      taskKey: 'page-oncall',
    });
    expect(checkTasksStartedOnce(ran).failures.join()).toMatch(
      /page-oncall: 1 run\(s\).*rule any_failed does not hold/,
    );
  });

  it('fail when a task is created or called before a dependency ended', () => {
    const created = history();
    const load = runOf(created, 0, 'load');
    load.createdAt = (runOf(created, 0, 'enrich', 2).completedAt as number) - 1;
    expect(checkTaskOrder(created).ok).toBe(false);
    const called = history();
    const merge = runOf(called, 2, 'merge');
    const call = called.calls.find((c) => c.runId === merge.runId) as TargetCall;
    call.at = (runOf(called, 2, 'shard-2').completedAt as number) - 1;
    expect(checkTaskOrder(called).ok).toBe(false);
  });

  it("fail when a task's state or the run's status disagrees with the runs and the rules", () => {
    const state = history();
    const enrich = storedRun(state, 0).tasks.enrich;
    if (enrich) enrich.attempt = 1;
    expect(checkWorkflowRunStates(state).ok).toBe(false);
    const status = history();
    storedRun(status, 1).status = 'SUCCEEDED';
    expect(checkWorkflowRunStates(status).ok).toBe(false);
    const reasonless = history();
    const merge = storedRun(reasonless, 3).tasks.merge;
    if (merge) merge.skippedReason = undefined;
    expect(checkWorkflowRunStates(reasonless).ok).toBe(false);
    const pending = history();
    delete storedRun(pending, 1).tasks.load;
    expect(checkWorkflowRunStates(pending).ok).toBe(false);
  });

  it("fail when load's body lacks a parent's status or carries a wrong one", () => {
    const evidence = history();
    const load = runOf(evidence, 0, 'load');
    const call = evidence.calls.find((c) => c.runId === load.runId) as TargetCall;
    const body = JSON.parse(call.body as string);
    delete body.upstream.enrich;
    call.body = JSON.stringify(body);
    expect(checkUpstreamInput(evidence).ok).toBe(false);
    const wrong = history();
    const wrongCall = wrong.calls.find((c) => c.runId === runOf(wrong, 0, 'load').runId) as TargetCall;
    wrongCall.body = (wrongCall.body as string).replace('"clean":{"status":"SUCCEEDED"', '"clean":{"status":"FAILED"');
    expect(checkUpstreamInput(wrong).failures.join()).toMatch(/upstream clean.status/);
  });

  it('fail without a completion kill mid-step holding a task run, or when its workflow run never ended', () => {
    const none = history();
    none.kills = [];
    none.stepHolds = [];
    expect(checkCompletionKilledMidStep(none).ok).toBe(false);
    const jobsOnly = history();
    jobsOnly.kills = [{ ...(jobsOnly.kills[0] as Kill), heldRunIds: ['01JOB_1_1'], reason: 'mid-batch' }];
    jobsOnly.stepHolds = [];
    expect(checkCompletionKilledMidStep(jobsOnly).ok).toBe(false);
    const stuck = history();
    storedRun(stuck, 0).status = 'RUNNING';
    expect(checkCompletionKilledMidStep(stuck).ok).toBe(false);
    expect(failuresOf(stuck)).toContain('completion killed mid-step, every task of its batch exactly once');
  });
});
