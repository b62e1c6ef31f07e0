import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATEST_INSTANT, MAX_ATTEMPT_NUMBER } from '#core/bounds';
import {
  parseTaskRunId,
  parseWorkflowRunId,
  taskIdempotencyKeyOf,
  taskRunIdOf,
  workflowRunIdOf,
} from '#core/workflows/task-run-id';

const WORKFLOW_RUN = workflowRunIdOf({ workflowId: '01JABCDEFGHJKMNPQRSTVWXYZ0', scheduledFor: 1_780_000_000_000 });

describe('task run ids', () => {
  it('derives one workflow run id per occurrence, and parses it back', () => {
    expect(WORKFLOW_RUN).toBe('01JABCDEFGHJKMNPQRSTVWXYZ0_1780000000000');
    expect(parseWorkflowRunId(WORKFLOW_RUN)).toEqual({
      workflowId: '01JABCDEFGHJKMNPQRSTVWXYZ0',
      scheduledFor: 1_780_000_000_000,
    });
    expect(parseWorkflowRunId('nope')).toBeUndefined();
  });

  it('gives a child the same id whichever parent started it, and another per round and attempt', () => {
    const key = { workflowRunId: WORKFLOW_RUN, taskKey: 'load', round: 0, attempt: 1 };
    expect(taskRunIdOf(key)).toBe('01JABCDEFGHJKMNPQRSTVWXYZ0_1780000000000_load_0_1');
    expect(taskRunIdOf({ ...key })).toBe(taskRunIdOf(key));
    expect(taskRunIdOf({ ...key, attempt: 2 })).not.toBe(taskRunIdOf(key));
    expect(taskRunIdOf({ ...key, round: 1 })).not.toBe(taskRunIdOf(key));
  });

  it('parses task keys holding _ and digits, and rejects anything else', () => {
    const key = { workflowRunId: WORKFLOW_RUN, taskKey: 'step_2_0', round: 3, attempt: 7 };
    expect(parseTaskRunId(taskRunIdOf(key))).toEqual(key);
    expect(parseTaskRunId(`${WORKFLOW_RUN}_load_0_0`)).toBeUndefined();
    expect(parseTaskRunId(`${WORKFLOW_RUN}_load_0`)).toBeUndefined();
    expect(parseTaskRunId(`${WORKFLOW_RUN}_lo ad_0_1`)).toBeUndefined();
    expect(parseTaskRunId('W_load_0_1')).toBeUndefined();
  });

  it('keeps the idempotency key across attempts of a round, and changes it with the round', () => {
    const key = { workflowRunId: WORKFLOW_RUN, taskKey: 'load', round: 0 };
    expect(taskIdempotencyKeyOf(key)).toBe('01JABCDEFGHJKMNPQRSTVWXYZ0_1780000000000:load:0');
    expect(taskIdempotencyKeyOf({ ...key, round: 1 })).not.toBe(taskIdempotencyKeyOf(key));
  });

  it('round-trips every valid key, so two different tasks or attempts never share an id', () => {
    const taskRunKey = fc.record({
      workflowRunId: fc
        .record({
          workflowId: fc.stringMatching(/^[0-9A-Za-z]{1,26}$/),
          scheduledFor: fc.integer({ min: 0, max: LATEST_INSTANT }),
        })
        .map(workflowRunIdOf),
      taskKey: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/).filter((key) => key !== '__proto__'),
      round: fc.integer({ min: 0, max: 999 }),
      attempt: fc.integer({ min: 1, max: MAX_ATTEMPT_NUMBER }),
    });
    fc.assert(
      fc.property(taskRunKey, (key) => {
        expect(parseTaskRunId(taskRunIdOf(key))).toEqual(key);
      }),
      { numRuns: 3000 },
    );
  });
});
