/**
 * Properties of the workflow rules over random graphs: validation accepts exactly the acyclic
 * ones (and names a real cycle otherwise); playing a run with arbitrary outcomes in arbitrary
 * order starts no task before its dependencies ended, starts none twice, always ends with every
 * task ended, and ends the same whichever order the runs end in; a retry never resets a task that
 * succeeded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskStatus, WorkflowGraph } from '#core/workflows/model';
import { retryPlan } from '#core/workflows/retry-plan';
import { hasEnded, isFailure } from '#core/workflows/task-outcome';
import { topologicalOrder } from '#core/workflows/topological-order';
import { parseWorkflowGraph } from '#core/workflows/validate-workflow';
import { workflowRunStatusOf } from '#core/workflows/workflow-run-status';
import { acyclicTasks, ancestorsOf, cyclicTasks, picker, RUN_OUTCOMES, workflowWithOutcomes } from './arbitraries.ts';
import { play } from './dags.ts';

const graphOf = (tasks: unknown): WorkflowGraph => {
  const result = parseWorkflowGraph(tasks);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.graph;
};
const statesOf = (final: Map<string, TaskStatus>) => new Map([...final].map(([key, status]) => [key, { status }]));

describe('workflow rules over random graphs', () => {
  it('accepts every acyclic workflow, keeping its keys, dependencies and rules', () => {
    fc.assert(
      fc.property(acyclicTasks(), (tasks) => {
        expect(parseWorkflowGraph(tasks)).toEqual({ ok: true, graph: tasks });
        const order = topologicalOrder(tasks) ?? [];
        expect(order.toSorted()).toEqual(tasks.map((t) => t.key).toSorted());
        for (const task of tasks)
          for (const dep of task.dependsOn) expect(order.indexOf(dep)).toBeLessThan(order.indexOf(task.key));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses every cyclic workflow, naming the tasks of a real cycle in order', () => {
    fc.assert(
      fc.property(cyclicTasks(), (tasks) => {
        const result = parseWorkflowGraph(tasks);
        expect(result.ok).toBe(false);
        if (result.ok) return;
        const problem = result.problems.find((p) => p.reason.startsWith('forms a cycle: '));
        expect(problem).toBeDefined();
        const named = (problem?.reason.slice('forms a cycle: '.length) ?? '').split(' → ');
        const cycle = named.slice(0, -1);
        expect(named.at(-1)).toBe(named[0]);
        expect(new Set(cycle).size).toBe(cycle.length);
        const byKey = new Map(tasks.map((task) => [task.key, task]));
        // Each task is needed by the next one around the cycle.
        for (let i = 0; i < cycle.length; i++) {
          const next = byKey.get(cycle[(i + 1) % cycle.length] as string);
          expect(next?.dependsOn).toContain(cycle[i]);
        }
        // The field names the entry that closes it, on the cycle's first task.
        const match = /^tasks\.(\d+)\.dependsOn\.(\d+)$/.exec(problem?.field ?? '');
        const task = tasks[Number(match?.[1])];
        expect(task?.key).toBe(cycle[0]);
        expect(task?.dependsOn[Number(match?.[2])]).toBe(cycle.at(-1));
        expect(topologicalOrder(tasks)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('starts no task before all its dependencies ended, none twice, and only when its rule holds', () => {
    fc.assert(
      fc.property(workflowWithOutcomes(), fc.array(fc.nat()), ({ tasks, outcome }, picks) => {
        const graph = graphOf(tasks);
        const played = play(graph, (key) => outcome.get(key) ?? 'SUCCEEDED', picker(picks));
        expect(new Set(played.started).size).toBe(played.started.length);
        for (const key of played.started) {
          const deps = played.dependenciesAtStart.get(key) ?? [];
          expect(deps.every(hasEnded)).toBe(true);
          const when = graph.find((t) => t.key === key)?.when;
          if (when === 'all_succeeded') expect(deps.every((s) => s === 'SUCCEEDED')).toBe(true);
          if (when === 'any_failed') expect(deps.some((s) => isFailure(s) || s === 'SKIPPED')).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('always ends with every task ended, none stuck PENDING, whatever the outcomes', () => {
    const anyOutcome: TaskStatus[] = [...RUN_OUTCOMES, 'CANCELLED'];
    fc.assert(
      fc.property(workflowWithOutcomes(anyOutcome), fc.array(fc.nat()), ({ tasks, outcome }, picks) => {
        const graph = graphOf(tasks);
        const played = play(graph, (key) => outcome.get(key) ?? 'SUCCEEDED', picker(picks));
        // One step per task run at most, plus the last look.
        expect(played.steps).toBeLessThanOrEqual(tasks.length + 1);
        expect([...played.final.values()].every(hasEnded)).toBe(true);
        const status = workflowRunStatusOf(graph, statesOf(played.final));
        expect(status).not.toBe('RUNNING');
        expect(status === 'FAILED').toBe([...played.final.values()].some(isFailure));
      }),
      { numRuns: 400 },
    );
  });

  it('ends every task the same way whichever order the runs end in', () => {
    fc.assert(
      fc.property(workflowWithOutcomes(), fc.array(fc.nat(), { minLength: 1 }), ({ tasks, outcome }, picks) => {
        const graph = graphOf(tasks);
        const outcomeOf = (key: string) => outcome.get(key) ?? 'SUCCEEDED';
        const final = play(graph, outcomeOf, picker(picks)).final;
        // Against the two extremes: runs ending oldest first, and newest first.
        expect(play(graph, outcomeOf, () => 0).final).toEqual(final);
        expect(play(graph, outcomeOf, (inFlight) => inFlight.length - 1).final).toEqual(final);
      }),
      { numRuns: 1000 },
    );
  });

  it('never resets a succeeded task on retry, resets only failures and what lies after them, and can then succeed', () => {
    fc.assert(
      fc.property(workflowWithOutcomes(), fc.array(fc.nat()), ({ tasks, outcome }, picks) => {
        const graph = graphOf(tasks);
        const played = play(graph, (key) => outcome.get(key) ?? 'SUCCEEDED', picker(picks));
        const plan = retryPlan(graph, statesOf(played.final), 0);
        const failed = [...played.final].filter(([, status]) => isFailure(status)).map(([key]) => key);
        if (failed.length === 0) {
          expect(plan).toEqual({ ok: false, reason: 'nothing_failed', tasks: [] });
          return;
        }
        expect(plan.ok).toBe(true);
        if (!plan.ok) return;
        for (const key of plan.reset) {
          expect(played.final.get(key)).not.toBe('SUCCEEDED');
          const upstream = [key, ...ancestorsOf(tasks, key)];
          expect(upstream.some((k) => failed.includes(k))).toBe(true);
        }
        for (const key of failed) expect(plan.reset).toContain(key);
        // Reset, then every run succeeds: no succeeded task runs again, and the run succeeds.
        const reset = new Map(played.final);
        for (const key of plan.reset) reset.set(key, 'PENDING');
        const again = play(graph, () => 'SUCCEEDED', picker(picks), statesOf(reset));
        for (const key of again.started) expect(played.final.get(key)).not.toBe('SUCCEEDED');
        expect(workflowRunStatusOf(graph, statesOf(again.final))).toBe('SUCCEEDED');
      }),
      { numRuns: 400 },
    );
  });
});
