import { describe, expect, it } from 'vitest';
import { cancelPlan } from '#core/workflows/cancel-plan';
import { readiness } from '#core/workflows/readiness';
import { workflowRunStatusOf } from '#core/workflows/workflow-run-status';
import { NIGHTLY_ETL, states } from './dags.ts';

describe('cancel plan of a workflow run', () => {
  it('cancels the tasks not started, soft-cancels those in flight and leaves ended ones', () => {
    const going = states({ extract: 'SUCCEEDED', clean: 'RUNNING', enrich: 'QUEUED' });
    expect(cancelPlan(NIGHTLY_ETL, going)).toEqual({
      cancel: ['load', 'page-oncall'],
      softCancel: ['clean', 'enrich'],
    });
  });

  it('leaves readiness nothing to start once applied, whatever the in-flight tasks then do', () => {
    const going = states({ extract: 'SUCCEEDED', clean: 'RUNNING', enrich: 'QUEUED' });
    const plan = cancelPlan(NIGHTLY_ETL, going);
    const after = new Map(going);
    for (const key of plan.cancel) after.set(key, { status: 'CANCELLED' });
    after.set('clean', { status: 'FAILED' });
    after.set('enrich', { status: 'CANCELLED' });
    expect(readiness(NIGHTLY_ETL, after)).toEqual({ start: [], skip: [], cancel: [] });
    expect(workflowRunStatusOf(NIGHTLY_ETL, after, true)).toBe('CANCELLED');
  });
});
