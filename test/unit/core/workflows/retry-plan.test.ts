import { describe, expect, it } from 'vitest';
import { MAX_WORKFLOW_ROUND, retryPlan } from '#core/workflows/retry-plan';
import { fanOutFanIn, NIGHTLY_ETL, node, states } from './dags.ts';

describe('retry plan of a workflow run', () => {
  it('resets the failed task and what it skipped, never the succeeded ones', () => {
    const ended = states({
      extract: 'SUCCEEDED',
      clean: 'SUCCEEDED',
      enrich: 'FAILED',
      load: 'SKIPPED',
      'page-oncall': 'SUCCEEDED',
    });
    expect(retryPlan(NIGHTLY_ETL, ended, 0)).toEqual({ ok: true, round: 1, reset: ['enrich', 'load'] });
  });

  it('resets every failure of a fan-out and the fan-in behind them, keeping the workers that succeeded', () => {
    const graph = fanOutFanIn(4);
    const ended = states({
      split: 'SUCCEEDED',
      'worker-0': 'SUCCEEDED',
      'worker-1': 'TIMED_OUT',
      'worker-2': 'SUCCEEDED',
      'worker-3': 'DEAD_LETTERED',
      merge: 'SKIPPED',
    });
    expect(retryPlan(graph, ended, 2)).toEqual({ ok: true, round: 3, reset: ['worker-1', 'worker-3', 'merge'] });
  });

  it('resets failed and cancelled tasks downstream of a failure, and leaves unrelated ones', () => {
    const graph = [node('a'), node('b', ['a'], 'all_done'), node('c', ['b']), node('side')];
    const ended = states({ a: 'FAILED', b: 'FAILED', c: 'CANCELLED', side: 'SKIPPED' });
    expect(retryPlan(graph, ended, 0)).toEqual({ ok: true, round: 1, reset: ['a', 'b', 'c'] });
  });

  it('refuses while a task has not ended, naming the tasks still going', () => {
    const going = states({ extract: 'SUCCEEDED', clean: 'RUNNING', enrich: 'FAILED' });
    expect(retryPlan(NIGHTLY_ETL, going, 0)).toEqual({
      ok: false,
      reason: 'not_ended',
      tasks: ['clean', 'load', 'page-oncall'],
    });
  });

  it('refuses when nothing failed', () => {
    const ended = states({
      extract: 'SUCCEEDED',
      clean: 'SUCCEEDED',
      enrich: 'SUCCEEDED',
      load: 'SUCCEEDED',
      'page-oncall': 'SKIPPED',
    });
    expect(retryPlan(NIGHTLY_ETL, ended, 0)).toEqual({ ok: false, reason: 'nothing_failed', tasks: [] });
  });

  it('refuses past the last round, and for a round that is no count', () => {
    const ended = states({ a: 'FAILED' });
    expect(retryPlan([node('a')], ended, MAX_WORKFLOW_ROUND - 1)).toEqual({
      ok: true,
      round: MAX_WORKFLOW_ROUND,
      reset: ['a'],
    });
    for (const round of [MAX_WORKFLOW_ROUND, -1, 1.5, Number.NaN]) {
      expect(retryPlan([node('a')], ended, round)).toEqual({ ok: false, reason: 'rounds_exhausted', tasks: ['a'] });
    }
  });
});
