/**
 * The checks of the workflow case (issue 21). What each task of each workflow run had to do is
 * derived here, independently of the engine: the trigger rules (all_succeeded, any_failed, with a
 * skip carrying a failure downstream) applied in dependency order to the tasks' last attempts as
 * the runs table holds them (whose outcomes checkRecordsMatchTarget holds to the target's log).
 * A task the rules start has its round-0 runs planned like a job's occurrence (workflowTaskPlans:
 * the common checks then hold them to every run guarantee, and flag any run of a task the rules
 * skip as UNPLANNED); a task skipped by its rule has no run, which is not "lost".
 */
import { type CheckResult, examples, groupBy, iso, TERMINAL } from './checks-index.ts';
import type { Evidence, StoredRun, StoredWorkflowRun } from './evidence.ts';
import type { CreatedJob } from './workload.ts';
import { ownBodyOf, type WorkflowCase, type WorkflowTaskPlan, type WorkflowTrigger } from './workload-workflows.ts';

const FAILURES = new Set(['FAILED', 'TIMED_OUT', 'DEAD_LETTERED']);

/** What the rules say one task of one workflow run had to do, and what its runs did. */
export interface TaskExpectation {
  task: WorkflowTaskPlan;
  taskJobId: string;
  /** `undecided`: a dependency has not ended (its own failure is reported where it is). */
  decision: 'start' | 'skip' | 'undecided';
  /** Its runs in round 0, by attempt. */
  runs: StoredRun[];
  /** SKIPPED, or its last attempt's status once that ended (terminal, no retry owed). */
  outcome?: string;
  carriesFailure: boolean;
  /** When it ended: its last attempt's completedAt, or for a skip the moment its rule could no longer hold. */
  endedAt?: number;
}

export interface WorkflowRunExpectation {
  workflow: WorkflowCase;
  workflowId: string;
  trigger: WorkflowTrigger;
  workflowRunId: string;
  scheduledFor: number;
  stored?: StoredWorkflowRun;
  tasks: Map<string, TaskExpectation>;
}

const taskJobIdOf = (workflowId: string, index: number) => `${workflowId}v1t${index}`;

function lastEnded(runs: StoredRun[]): StoredRun | undefined {
  const last = runs[runs.length - 1];
  if (!last || !TERMINAL.has(last.status) || last.nextAttemptAt !== undefined) return undefined;
  return last;
}

/** The rule of `task` over its dependencies' expectations (docs/workflows.md "How a workflow run goes"). */
function decide(
  task: WorkflowTaskPlan,
  deps: TaskExpectation[],
): { decision: TaskExpectation['decision']; carriesFailure: boolean; endedAt?: number } {
  const carriers = deps.filter((dep) => dep.carriesFailure);
  const allEnded = deps.every((dep) => dep.outcome !== undefined);
  const lastEnd = Math.max(0, ...deps.map((dep) => dep.endedAt ?? 0));
  if (task.when === 'all_succeeded') {
    // Skipped as soon as one dependency carries a failure, whatever the others are doing.
    if (carriers.length > 0)
      return { decision: 'skip', carriesFailure: true, endedAt: Math.min(...carriers.map((d) => d.endedAt ?? 0)) };
    if (!allEnded) return { decision: 'undecided', carriesFailure: false };
    if (deps.every((dep) => dep.outcome === 'SUCCEEDED')) return { decision: 'start', carriesFailure: false };
    return { decision: 'skip', carriesFailure: false, endedAt: lastEnd };
  }
  if (!allEnded) return { decision: 'undecided', carriesFailure: false };
  return carriers.length > 0
    ? { decision: 'start', carriesFailure: false }
    : { decision: 'skip', carriesFailure: false, endedAt: lastEnd };
}

/** Every triggered workflow run with what each of its tasks had to do. */
export function expectWorkflowRuns(evidence: Evidence): WorkflowRunExpectation[] {
  const runsByOccurrence = groupBy(evidence.runs, (run) => `${run.jobId}:${run.scheduledFor}`);
  for (const runs of runsByOccurrence.values()) runs.sort((a, b) => a.attempt - b.attempt);
  const stored = new Map((evidence.workflowRuns ?? []).map((run) => [run.workflowRunId, run]));
  const expectations: WorkflowRunExpectation[] = [];
  for (const workflow of evidence.workflows ?? []) {
    const workflowId = workflow.workflowId;
    if (!workflowId) continue;
    for (const trigger of workflow.triggers) {
      const workflowRunId = trigger.workflowRunId;
      if (!workflowRunId) continue;
      const scheduledFor = Number(workflowRunId.slice(workflowRunId.lastIndexOf('_') + 1));
      const tasks = new Map<string, TaskExpectation>();
      // Definition order is a dependency order here (planWorkflows); a fixpoint keeps it honest anyway.
      let decided = true;
      while (decided) {
        decided = false;
        workflow.tasks.forEach((task, index) => {
          if (tasks.has(task.key)) return;
          const deps = task.dependsOn.map((key) => tasks.get(key));
          if (deps.some((dep) => dep === undefined)) return;
          const taskJobId = taskJobIdOf(workflowId, index);
          const runs = runsByOccurrence.get(`${taskJobId}:${scheduledFor}`) ?? [];
          const rule = decide(task, deps as TaskExpectation[]);
          const expectation: TaskExpectation = { task, taskJobId, runs, ...rule };
          if (rule.decision === 'skip') expectation.outcome = 'SKIPPED';
          if (rule.decision === 'start') {
            const last = lastEnded(runs);
            if (last) {
              expectation.outcome = last.status;
              expectation.carriesFailure = FAILURES.has(last.status);
              if (last.completedAt !== undefined) expectation.endedAt = last.completedAt;
            }
          }
          if (rule.decision === 'undecided' || (rule.decision === 'start' && expectation.outcome === undefined)) {
            expectation.outcome = undefined;
            expectation.carriesFailure = false;
          }
          tasks.set(task.key, expectation);
          decided = true;
        });
      }
      expectations.push({
        workflow,
        workflowId,
        trigger,
        workflowRunId,
        scheduledFor,
        stored: stored.get(workflowRunId),
        tasks,
      });
    }
  }
  return expectations;
}

/**
 * Each task item as a planned job: its occurrences are the workflow runs whose rules start it
 * (round 0), so the common checks hold its runs to every guarantee of a job's.
 */
export function workflowTaskPlans(
  evidence: Evidence,
  expectations: WorkflowRunExpectation[] = expectWorkflowRuns(evidence),
): CreatedJob[] {
  const plans = new Map<string, CreatedJob>();
  for (const workflow of evidence.workflows ?? []) {
    if (!workflow.workflowId) continue;
    workflow.tasks.forEach((task, index) => {
      const jobId = taskJobIdOf(workflow.workflowId as string, index);
      plans.set(jobId, {
        name: `${workflow.name}/${task.key}`,
        kind: 'workflow-task',
        delivery: 'at-least-once',
        createAtMs: 0,
        dueAfterMs: 0,
        jobId,
        occurrences: [],
      });
    });
  }
  for (const expectation of expectations) {
    for (const task of expectation.tasks.values()) {
      if (task.decision === 'start') plans.get(task.taskJobId)?.occurrences.push(expectation.scheduledFor);
    }
  }
  return [...plans.values()];
}

/** The evidence with every workflow task planned as a job (for the common checks). */
export function withWorkflowTasks(evidence: Evidence): Evidence {
  if (!evidence.workflows?.length) return evidence;
  return { ...evidence, plans: [...evidence.plans, ...workflowTaskPlans(evidence)] };
}

/**
 * Every workflow was created once and every trigger answered with a workflow run (retries of a
 * trigger whose answer a kill swallowed find the same run: never a second one), and every
 * workflow run had ended (not RUNNING) by the end of settling. The API was killed in a trigger
 * (its first tasks sent, the workflow run not yet naming them): that trigger's retry was answered
 * with the same workflow run (`202 replayed`), and the tasks it had sent ended.
 */
export function checkWorkflowRunsEnded(evidence: Evidence): CheckResult {
  const failures: string[] = [];
  const workflows = evidence.workflows ?? [];
  const stored = evidence.workflowRuns ?? [];
  const storedById = new Map(stored.map((run) => [run.workflowRunId, run]));
  const byStatus = new Map<string, number>();
  let triggers = 0;
  let retried = 0;
  const answered = new Set<string>();
  for (const workflow of workflows) {
    if (!workflow.workflowId)
      failures.push(`NOT CREATED ${workflow.name}: ${workflow.createError ?? 'no workflow id'}`);
    for (const trigger of workflow.triggers) {
      triggers++;
      if (trigger.tries.length > 1) retried++;
      if (!trigger.workflowRunId) {
        failures.push(`TRIGGER FAILED ${workflow.name} at ${trigger.atMs} ms: ${trigger.error ?? 'no answer'}`);
        continue;
      }
      if (answered.has(trigger.workflowRunId))
        failures.push(`${workflow.name}: two triggers answered the same workflow run ${trigger.workflowRunId}`);
      answered.add(trigger.workflowRunId);
      const run = storedById.get(trigger.workflowRunId);
      if (!run)
        failures.push(`${trigger.workflowRunId} (${workflow.name}): answered 202, not in the workflow-runs table`);
      else {
        byStatus.set(run.status, (byStatus.get(run.status) ?? 0) + 1);
        if (run.status === 'RUNNING')
          failures.push(`${trigger.workflowRunId} (${workflow.name}) still RUNNING: ${describeTasks(run)}`);
      }
    }
  }
  const triggerKills = evidence.kills.filter((kill) => kill.role === 'api' && kill.reason === 'mid-trigger');
  const holds = evidence.triggerHolds ?? [];
  if (triggerKills.length === 0 || holds.length === 0) failures.push('the API was never killed in a trigger');
  const runsById = new Map(evidence.runs.map((run) => [run.runId, run]));
  const triggerOf = new Map(workflows.flatMap((w) => w.triggers.map((t) => [t.workflowRunId, t] as const)));
  for (const hold of holds) {
    const run = runsById.get(hold.taskRunId);
    const trigger = run?.workflowRunId === undefined ? undefined : triggerOf.get(run.workflowRunId);
    if (!run) failures.push(`${hold.taskRunId}: sent by the killed trigger, not in the runs table`);
    else if (!trigger?.tries.includes('202 replayed'))
      failures.push(
        `${run.workflowRunId}: its trigger was killed, yet no retry was answered with it (${trigger?.tries.join(', ') ?? 'no trigger'})`,
      );
    for (const runId of hold.sentRunIds.filter((id) => id.startsWith('wf'))) {
      const sent = runsById.get(runId);
      if (!sent || !TERMINAL.has(sent.status))
        failures.push(`${runId}: sent by the killed trigger, ${sent?.status ?? 'not in the runs table'}`);
    }
  }
  const ours = new Set(workflows.map((workflow) => workflow.workflowId));
  for (const run of stored) {
    if (ours.has(run.workflowId) && !answered.has(run.workflowRunId))
      failures.push(
        `UNPLANNED workflow run ${run.workflowRunId}: no trigger was answered with it (a doubled trigger?)`,
      );
  }
  return {
    name: 'every workflow run ended, one per trigger',
    ok: failures.length === 0 && answered.size > 0,
    numbers: `${workflows.length} workflows, ${triggers} triggers (${retried} answered after a failed try; ${triggerKills.length} API kill(s) mid-trigger): ${answered.size} workflow runs, ${[...byStatus].map(([status, n]) => `${n} ${status}`).join(', ') || 'none stored'}`,
    failures: examples(failures),
  };
}

const describeTasks = (run: StoredWorkflowRun) =>
  Object.entries(run.tasks)
    .map(([key, state]) => `${key} ${state.status}`)
    .join(', ');

/**
 * Every task started at most once per round: one first attempt for each task the rules start
 * (the fan-in task exactly once when all its parents SUCCEEDED), none for a task they skip (the
 * fan-in never after a parent failed for good), no run outside the workflow run's rounds, and one
 * Idempotency-Key called per started task.
 */
export function checkTasksStartedOnce(
  evidence: Evidence,
  expectations: WorkflowRunExpectation[] = expectWorkflowRuns(evidence),
): CheckResult {
  const failures: string[] = [];
  let started = 0;
  let skipped = 0;
  const fanIns = { once: 0, never: 0 };
  const keysOf = groupBy(evidence.calls, (call) => call.runId.slice(0, call.runId.lastIndexOf('_')));
  const runsByTaskItem = groupBy(
    evidence.runs.filter((run) => run.jobId.startsWith('wf')),
    (run) => run.jobId,
  );
  const rounds = new Map<string, Set<number>>();
  for (const expectation of expectations) {
    const round = expectation.stored?.round ?? 0;
    if (round !== 0) failures.push(`${expectation.workflowRunId}: round ${round}, yet nobody retried it`);
    for (const task of expectation.tasks.values()) {
      const occurrences = rounds.get(task.taskJobId) ?? new Set<number>();
      for (let r = 0; r <= round; r++) occurrences.add(expectation.scheduledFor + r);
      rounds.set(task.taskJobId, occurrences);
      const where = `${expectation.workflowRunId} ${task.task.key}`;
      const first = task.runs.filter((run) => run.attempt === 1);
      const calledKeys = (keysOf.get(`${task.taskJobId}_${expectation.scheduledFor}`) ?? []).map(
        (c) => c.idempotencyKey,
      );
      const fanIn = task.task.dependsOn.length > 2;
      if (task.decision === 'start') {
        started++;
        if (fanIn) fanIns.once++;
        if (first.length !== 1) failures.push(`${where}: ${first.length} first attempts, the rules start it once`);
        if (new Set(calledKeys).size > 1) failures.push(`${where}: called under ${new Set(calledKeys).size} keys`);
        for (const run of task.runs) {
          if (run.workflowRunId !== expectation.workflowRunId || run.taskKey !== task.task.key)
            failures.push(`${run.runId}: names workflow run ${run.workflowRunId} task ${run.taskKey}`);
        }
      } else if (task.decision === 'skip') {
        skipped++;
        if (fanIn) fanIns.never++;
        if (task.runs.length > 0)
          failures.push(
            `${where}: ${task.runs.length} run(s) (${task.runs.map((r) => r.runId).join(', ')}), but its rule ${task.task.when} does not hold`,
          );
        if (calledKeys.length > 0) failures.push(`${where}: called ${calledKeys.length} time(s) although skipped`);
      }
    }
  }
  for (const [taskJobId, runs] of runsByTaskItem) {
    const known = rounds.get(taskJobId);
    if (!known) continue; // a task item of no triggered run: its workflow's failures are reported elsewhere
    for (const run of runs)
      if (!known.has(run.scheduledFor))
        failures.push(`${run.runId}: at ${iso(run.scheduledFor)}, in no round of any workflow run`);
  }
  return {
    name: 'every task started at most once per round',
    ok: failures.length === 0 && started > 0,
    numbers: `${started} tasks started once, ${skipped} skipped by their rule with no run; fan-ins: ${fanIns.once} started once after all parents succeeded, ${fanIns.never} never started after a parent failed`,
    failures: examples(failures),
  };
}

/** No task's first attempt was created (or called) before each of its dependencies had ended. */
export function checkTaskOrder(
  evidence: Evidence,
  expectations: WorkflowRunExpectation[] = expectWorkflowRuns(evidence),
): CheckResult {
  const failures: string[] = [];
  const callsByRun = groupBy(evidence.calls, (call) => call.runId);
  let checked = 0;
  let closest = Number.POSITIVE_INFINITY;
  for (const expectation of expectations) {
    for (const task of expectation.tasks.values()) {
      const first = task.runs.find((run) => run.attempt === 1);
      if (!first || task.task.dependsOn.length === 0) continue;
      checked++;
      const firstCall = Math.min(...(callsByRun.get(first.runId) ?? []).map((call) => call.at));
      for (const key of task.task.dependsOn) {
        const dep = expectation.tasks.get(key);
        const where = `${first.runId} (${expectation.workflowRunId} ${task.task.key})`;
        if (dep?.outcome === undefined || dep.endedAt === undefined) {
          failures.push(`${where}: created while its dependency ${key} had not ended`);
          continue;
        }
        if (first.createdAt === undefined || first.createdAt < dep.endedAt)
          failures.push(`${where}: created ${iso(first.createdAt)}, before ${key} ended ${iso(dep.endedAt)}`);
        else closest = Math.min(closest, first.createdAt - dep.endedAt);
        if (firstCall < dep.endedAt)
          failures.push(`${where}: called ${iso(firstCall)}, before ${key} ended ${iso(dep.endedAt)}`);
      }
    }
  }
  return {
    name: 'no task started before its dependencies ended',
    ok: failures.length === 0,
    numbers: `${checked} started tasks with dependencies; closest start after the last dependency's end ${Number.isFinite(closest) ? `${closest} ms` : 'n/a'}`,
    failures: examples(failures),
  };
}

/** The status the workflow-run rules give from the tasks' outcomes (docs/workflows.md). */
function expectedRunStatus(expectation: WorkflowRunExpectation): string {
  const outcomes = [...expectation.tasks.values()].map((task) => task.outcome);
  if (outcomes.some((outcome) => outcome === undefined)) return 'RUNNING';
  if (outcomes.some((outcome) => FAILURES.has(outcome as string))) return 'FAILED';
  if (outcomes.includes('CANCELLED')) return 'CANCELLED';
  return 'SUCCEEDED';
}

/**
 * Each task's state in its workflow run agrees with its last run (status, run id, attempt), or is
 * SKIPPED with a reason when its rule did not hold; the run's version is the one it started
 * with, and its status is what the workflow-run rules give from its tasks.
 */
export function checkWorkflowRunStates(
  evidence: Evidence,
  expectations: WorkflowRunExpectation[] = expectWorkflowRuns(evidence),
): CheckResult {
  const failures: string[] = [];
  let runs = 0;
  let states = 0;
  for (const expectation of expectations) {
    const stored = expectation.stored;
    if (!stored) continue; // checkWorkflowRunsEnded reports it
    runs++;
    const wanted = expectedRunStatus(expectation);
    if (stored.status !== wanted)
      failures.push(
        `${expectation.workflowRunId}: ${stored.status}, its tasks make it ${wanted} (${describeTasks(stored)})`,
      );
    if (stored.version !== 1) failures.push(`${expectation.workflowRunId}: version ${stored.version}, started with 1`);
    for (const task of expectation.tasks.values()) {
      const state = stored.tasks[task.task.key];
      const where = `${expectation.workflowRunId} ${task.task.key}`;
      if (task.decision === 'skip') {
        states++;
        if (state?.status !== 'SKIPPED' || !state.skippedReason || state.runId !== undefined)
          failures.push(
            `${where}: ${JSON.stringify(state ?? 'PENDING')}, its rule skips it (SKIPPED with a reason, no run)`,
          );
        continue;
      }
      const last = task.runs[task.runs.length - 1];
      if (task.decision !== 'start' || task.outcome === undefined || !last) continue;
      states++;
      if (state?.status !== last.status || state.runId !== last.runId || state.attempt !== last.attempt)
        failures.push(
          `${where}: ${state?.status ?? 'PENDING'} ${state?.runId ?? '-'} attempt ${state?.attempt ?? '-'}, its last run is ${last.runId} ${last.status}`,
        );
    }
  }
  return {
    name: "workflow runs' task states and status agree with the runs",
    ok: failures.length === 0 && runs > 0,
    numbers: `${states} task states in ${runs} workflow runs match their last run or their rule; every run's status follows from its tasks`,
    failures: examples(failures),
  };
}

/**
 * A task with `input: "upstream"` (load) was called with its own body and each parent's status,
 * HTTP status and response excerpt, as its parents' last runs left them.
 */
export function checkUpstreamInput(
  evidence: Evidence,
  expectations: WorkflowRunExpectation[] = expectWorkflowRuns(evidence),
): CheckResult {
  const failures: string[] = [];
  const callsByRun = groupBy(evidence.calls, (call) => call.runId);
  let calls = 0;
  for (const expectation of expectations) {
    for (const task of expectation.tasks.values()) {
      if (task.task.input !== 'upstream') continue;
      for (const run of task.runs) {
        for (const call of callsByRun.get(run.runId) ?? []) {
          calls++;
          const where = `${run.runId} (${expectation.workflowRunId} ${task.task.key})`;
          let body: { body?: unknown; upstream?: Record<string, Record<string, unknown>> };
          try {
            body = JSON.parse(call.body ?? '');
          } catch {
            failures.push(`${where}: body not JSON: ${String(call.body).slice(0, 80)}`);
            continue;
          }
          if (JSON.stringify(body.body) !== JSON.stringify(ownBodyOf(task.task.key)))
            failures.push(`${where}: own body ${JSON.stringify(body.body)}`);
          const keys = Object.keys(body.upstream ?? {});
          if (keys.join() !== task.task.dependsOn.join())
            failures.push(
              `${where}: upstream names ${keys.join(', ') || 'nothing'}, expected ${task.task.dependsOn.join(', ')}`,
            );
          for (const key of task.task.dependsOn) {
            const dep = expectation.tasks.get(key);
            const last = dep?.runs[dep.runs.length - 1];
            const got = body.upstream?.[key];
            const wanted = {
              status: dep?.outcome,
              httpStatus: last?.httpStatus,
              ...(dep?.outcome === 'SUCCEEDED' ? { responseExcerpt: 'ok' } : {}),
            };
            for (const [field, value] of Object.entries(wanted)) {
              if (got?.[field] !== value)
                failures.push(
                  `${where}: upstream ${key}.${field} = ${JSON.stringify(got?.[field])}, expected ${JSON.stringify(value)}`,
                );
            }
          }
        }
      }
    }
  }
  return {
    name: "upstream input carries the parents' results",
    ok: failures.length === 0 && calls > 0,
    numbers: `${calls} calls of upstream-input tasks, each with its own body and its parents' status, HTTP status and response`,
    failures: examples(failures),
  };
}

/**
 * The completion process was SIGKILLed holding a batch that contained a task run, in a workflow
 * step (a task's first attempt put, its workflow run not yet written); the task run it had put
 * and every task run of the batch ended, and their workflow runs ended.
 */
export function checkCompletionKilledMidStep(evidence: Evidence): CheckResult {
  const failures: string[] = [];
  const kills = evidence.kills.filter((kill) => kill.role === 'completion');
  const withTask = kills.filter((kill) => kill.heldRunIds.some((runId) => runId.startsWith('wf')));
  const stepKills = kills.filter((kill) => kill.reason === 'mid-step');
  const holds = evidence.stepHolds ?? [];
  if (withTask.length === 0) failures.push('no completion kill held a batch with a task run');
  if (stepKills.length === 0 || holds.length === 0) failures.push('the completion process was never killed mid-step');
  const runsById = new Map(evidence.runs.map((run) => [run.runId, run]));
  const byOccurrence = groupBy(evidence.runs, (run) => `${run.jobId}:${run.scheduledFor}`);
  const workflowRuns = new Map((evidence.workflowRuns ?? []).map((run) => [run.workflowRunId, run]));
  const held = new Set([
    ...holds.map((hold) => hold.taskRunId),
    ...withTask.flatMap((kill) => kill.heldRunIds.filter((runId) => runId.startsWith('wf'))),
  ]);
  let ended = 0;
  for (const runId of held) {
    const run = runsById.get(runId);
    if (!run) {
      failures.push(`${runId}: held by a killed completion, not in the runs table`);
      continue;
    }
    const runs = [...(byOccurrence.get(`${run.jobId}:${run.scheduledFor}`) ?? [])].sort(
      (a, b) => a.attempt - b.attempt,
    );
    const last = lastEnded(runs);
    const workflowRun = run.workflowRunId ? workflowRuns.get(run.workflowRunId) : undefined;
    if (!last) failures.push(`${runId}: held by a killed completion, its task's last attempt never ended`);
    else if (!workflowRun || workflowRun.status === 'RUNNING')
      failures.push(
        `${runId}: held by a killed completion, its workflow run ${run.workflowRunId} ${workflowRun?.status ?? 'missing'}`,
      );
    else ended++;
  }
  return {
    name: 'completion killed mid-step, every task of its batch exactly once',
    ok: failures.length === 0,
    numbers: `${withTask.length} completion SIGKILLs holding a task run (${stepKills.length} mid-step, after putting ${holds.map((h) => h.taskRunId).join(', ') || 'nothing'}); ${ended}/${held.size} held task runs ended, their workflow runs too`,
    failures: examples(failures),
  };
}

/** The checks of this file, in report order. */
export function runWorkflowChecks(evidence: Evidence): CheckResult[] {
  if (!evidence.workflows?.length) return [];
  const expectations = expectWorkflowRuns(evidence);
  return [
    checkWorkflowRunsEnded(evidence),
    checkTasksStartedOnce(evidence, expectations),
    checkTaskOrder(evidence, expectations),
    checkWorkflowRunStates(evidence, expectations),
    checkUpstreamInput(evidence, expectations),
    checkCompletionKilledMidStep(evidence),
  ];
}
