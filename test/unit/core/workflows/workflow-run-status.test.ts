import { describe, expect, it } from 'vitest';
import { workflowRunStatusOf } from '#core/workflows/workflow-run-status';
import { NIGHTLY_ETL, states } from './dags.ts';

const ALL_DONE = { extract: 'SUCCEEDED', clean: 'SUCCEEDED', enrich: 'SUCCEEDED', load: 'SUCCEEDED' } as const;

describe('workflow run status', () => {
  it('is RUNNING while any task has not ended, a failure already among them included', () => {
    expect(workflowRunStatusOf(NIGHTLY_ETL, new Map())).toBe('RUNNING');
    expect(workflowRunStatusOf(NIGHTLY_ETL, states({ extract: 'SUCCEEDED', clean: 'FAILED', enrich: 'RUNNING' }))).toBe(
      'RUNNING',
    );
    expect(workflowRunStatusOf(NIGHTLY_ETL, states({ ...ALL_DONE, 'page-oncall': 'QUEUED' }))).toBe('RUNNING');
  });

  it('is SUCCEEDED when every task ended and none failed; tasks skipped by their rule are fine', () => {
    expect(workflowRunStatusOf(NIGHTLY_ETL, states({ ...ALL_DONE, 'page-oncall': 'SKIPPED' }))).toBe('SUCCEEDED');
  });

  it('is FAILED when a task FAILED, TIMED_OUT or was DEAD_LETTERED, even when the alarm after it succeeded', () => {
    for (const failure of ['FAILED', 'TIMED_OUT', 'DEAD_LETTERED'] as const) {
      const ended = states({ ...ALL_DONE, enrich: failure, load: 'SKIPPED', 'page-oncall': 'SUCCEEDED' });
      expect(workflowRunStatusOf(NIGHTLY_ETL, ended)).toBe('FAILED');
    }
  });

  it('is CANCELLED once cancelled, whatever its tasks do, and when a task never ran for a cancel', () => {
    expect(workflowRunStatusOf(NIGHTLY_ETL, states({ extract: 'RUNNING' }), true)).toBe('CANCELLED');
    expect(workflowRunStatusOf(NIGHTLY_ETL, states({ ...ALL_DONE, 'page-oncall': 'SKIPPED' }), true)).toBe('CANCELLED');
    expect(
      workflowRunStatusOf(NIGHTLY_ETL, states({ ...ALL_DONE, load: 'CANCELLED', 'page-oncall': 'CANCELLED' })),
    ).toBe('CANCELLED');
  });
});
