/**
 * schemas/create-workflow.json agrees with the workflow rules in functions/core/workflows/: the
 * same key characters, task count and rules, so a body the schema passes meets only the graph
 * checks a schema cannot make (cycles, unknown or repeated keys), each named by the core.
 */
import { transpileSchema } from '@middy/validator/transpile';
import { describe, expect, it } from 'vitest';
import { TASK_INPUT_MODES, TRIGGER_RULES } from '#core/workflows/model';
import { MAX_WORKFLOW_TASKS, TASK_KEY_PATTERN } from '#core/workflows/task-key';
import { parseWorkflowGraph } from '#core/workflows/validate-workflow';
import asyncSettingsSchema from '#schemas/async-settings.json' with { type: 'json' };
import createJobSchema from '#schemas/create-job.json' with { type: 'json' };
import schema from '#schemas/create-workflow.json' with { type: 'json' };

// Compiled as a handler would: the shared parts are create-job.json's own.
const validate = transpileSchema(schema, {
  coerceTypes: false,
  useDefaults: false,
  schemas: { 'create-job.json': createJobSchema, 'async-settings.json': asyncSettingsSchema },
  // Typed as Ajv, but it is the compiled validate function (as @middy/validator calls it).
}) as unknown as (body: unknown) => boolean;

const task = schema.properties.tasks.items.properties;
const [example] = schema.examples;

describe('schemas/create-workflow.json', () => {
  it('accepts its example, which the graph rules accept too', () => {
    expect(validate(example)).toBe(true);
    expect(parseWorkflowGraph(example?.tasks).ok).toBe(true);
  });

  it('holds the same key characters, task count, rules and input modes as the core', () => {
    expect(task.key.pattern).toBe(TASK_KEY_PATTERN.source);
    expect(task.dependsOn.items.pattern).toBe(TASK_KEY_PATTERN.source);
    expect(schema.properties.tasks.maxItems).toBe(MAX_WORKFLOW_TASKS);
    expect(task.dependsOn.maxItems).toBe(MAX_WORKFLOW_TASKS - 1);
    expect(task.when.enum).toEqual([...TRIGGER_RULES]);
    expect(task.input.enum).toEqual([...TASK_INPUT_MODES]);
  });

  it("takes a job's schedule and task fields by reference, and refuses what they refuse", () => {
    const body = {
      schedule: { type: 'cron', expression: '0 2 * * *' },
      tasks: [{ key: 'a', target: { url: 'https://example.com', method: 'POST' }, retry: { maxAttempts: 3 } }],
    };
    expect(validate(body)).toBe(true);
    expect(validate({ ...body, schedule: { type: 'weekly' } })).toBe(false);
    expect(
      validate({ tasks: [{ key: 'a', target: { url: 'https://example.com' }, retry: { maxAttempts: 99 } }] }),
    ).toBe(false);
    expect(validate({ tasks: [{ key: 'a', target: {} }] })).toBe(false);
    expect(validate({ tasks: [{ key: 'a', target: { url: 'https://example.com' }, colour: 'red' }] })).toBe(false);
  });

  it('refuses bad keys, rules and sizes itself, and leaves cycles to the core', () => {
    const target = { url: 'https://example.com' };
    expect(validate({ tasks: [] })).toBe(false);
    expect(validate({ tasks: [{ key: 'a b', target }] })).toBe(false);
    expect(validate({ tasks: [{ key: 'a', target, when: 'sometimes' }] })).toBe(false);
    const many = Array.from({ length: MAX_WORKFLOW_TASKS + 1 }, (_, i) => ({ key: `t${i}`, target }));
    expect(validate({ tasks: many })).toBe(false);
    expect(validate({ tasks: many.slice(0, MAX_WORKFLOW_TASKS) })).toBe(true);
    const cyclic = [
      { key: 'a', target },
      { key: 'b', target, dependsOn: ['a', 'c'] },
      { key: 'c', target, dependsOn: ['b'] },
    ];
    expect(validate({ tasks: cyclic })).toBe(true);
    expect(parseWorkflowGraph(cyclic)).toEqual({
      ok: false,
      problems: [{ field: 'tasks.1.dependsOn.1', reason: 'forms a cycle: b → c → b' }],
    });
  });
});
