import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LATEST_INSTANT } from '#core/bounds';
import { idempotencyKeyOf, parseRunId, runIdOf } from '#core/run-id';
import { MAX_WORKFLOW_ROUND } from '#core/workflows/retry-plan';
import { parseWorkflowRunId, roundOfTaskRun, taskRunKeyOf, workflowRunIdOf } from '#core/workflows/task-run-id';
import { taskJobIdOf } from '#core/workflows/workflow-ids';

const WORKFLOW_ID = 'wf01JABCDEFGHJKMNPQRSTVWXYZ0';
const WORKFLOW_RUN = { tenantId: 'acme', scheduledFor: 1_780_000_000_000 };

describe('workflow run ids and task run keys', () => {
  it('derives one workflow run id per occurrence, and parses it back', () => {
    const id = workflowRunIdOf({ workflowId: WORKFLOW_ID, scheduledFor: WORKFLOW_RUN.scheduledFor });
    expect(id).toBe(`${WORKFLOW_ID}_1780000000000`);
    expect(parseWorkflowRunId(id)).toEqual({ workflowId: WORKFLOW_ID, scheduledFor: 1_780_000_000_000 });
    expect(parseWorkflowRunId('nope')).toBeUndefined();
    expect(parseWorkflowRunId(`${WORKFLOW_ID}_99999999999999999`)).toBeUndefined();
  });

  it('gives a task the same run whichever parent started it, another per attempt and per round', () => {
    const task = taskJobIdOf(WORKFLOW_ID, 2, 3);
    const key = taskRunKeyOf(WORKFLOW_RUN, task, 0, 1);
    expect(runIdOf(key)).toBe(`${WORKFLOW_ID}v2t3_1780000000000_1`);
    expect(runIdOf(taskRunKeyOf(WORKFLOW_RUN, task, 0, 1))).toBe(runIdOf(key));
    expect(runIdOf(taskRunKeyOf(WORKFLOW_RUN, task, 0, 2))).not.toBe(runIdOf(key));
    expect(runIdOf(taskRunKeyOf(WORKFLOW_RUN, task, 1, 1))).not.toBe(runIdOf(key));
  });

  it('keeps the Idempotency-Key across the attempts of a round and changes it in the next round', () => {
    const task = taskJobIdOf(WORKFLOW_ID, 1, 0);
    const first = taskRunKeyOf(WORKFLOW_RUN, task, 0, 1);
    expect(idempotencyKeyOf(taskRunKeyOf(WORKFLOW_RUN, task, 0, 3))).toBe(idempotencyKeyOf(first));
    expect(idempotencyKeyOf(taskRunKeyOf(WORKFLOW_RUN, task, 1, 1))).not.toBe(idempotencyKeyOf(first));
  });

  it('makes run ids the runs API parses back to the same key and round (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: LATEST_INSTANT - MAX_WORKFLOW_ROUND }),
        fc.integer({ min: 1, max: 999_999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: MAX_WORKFLOW_ROUND }),
        fc.integer({ min: 1, max: 999 }),
        (scheduledFor, version, index, round, attempt) => {
          const run = { tenantId: 'acme', scheduledFor };
          const key = taskRunKeyOf(run, taskJobIdOf(WORKFLOW_ID, version, index), round, attempt);
          const { tenantId: _, ...parts } = key;
          expect(parseRunId(runIdOf(key))).toEqual(parts);
          expect(roundOfTaskRun(scheduledFor, key.scheduledFor)).toBe(round);
        },
      ),
    );
  });
});
