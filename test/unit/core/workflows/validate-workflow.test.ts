import { describe, expect, it } from 'vitest';
import { parseWorkflowGraph } from '#core/workflows/validate-workflow';

const problemsOf = (tasks: unknown) => {
  const result = parseWorkflowGraph(tasks);
  return result.ok ? [] : result.problems;
};

const ETL_TASKS = [
  { key: 'extract' },
  { key: 'clean', dependsOn: ['extract'] },
  { key: 'enrich', dependsOn: ['extract'] },
  { key: 'load', dependsOn: ['clean', 'enrich'], input: 'upstream' },
  { key: 'page-oncall', dependsOn: ['load'], when: 'any_failed' },
];

describe('workflow graph validation', () => {
  it('accepts the nightly ETL and fills in the default rule', () => {
    const result = parseWorkflowGraph(ETL_TASKS);
    expect(result).toEqual({
      ok: true,
      graph: [
        { key: 'extract', dependsOn: [], when: 'all_succeeded' },
        { key: 'clean', dependsOn: ['extract'], when: 'all_succeeded' },
        { key: 'enrich', dependsOn: ['extract'], when: 'all_succeeded' },
        { key: 'load', dependsOn: ['clean', 'enrich'], when: 'all_succeeded' },
        { key: 'page-oncall', dependsOn: ['load'], when: 'any_failed' },
      ],
    });
  });

  it('names the tasks of a cycle in order, on the dependency that closes it', () => {
    const tasks = [
      { key: 'start' },
      { key: 'a', dependsOn: ['start', 'c'] },
      { key: 'b', dependsOn: ['a'] },
      { key: 'c', dependsOn: ['b'] },
    ];
    expect(problemsOf(tasks)).toEqual([{ field: 'tasks.1.dependsOn.1', reason: 'forms a cycle: a → b → c → a' }]);
  });

  it('names one cycle when there are several', () => {
    const tasks = [
      { key: 'root' },
      { key: 'x', dependsOn: ['y'] },
      { key: 'y', dependsOn: ['x'] },
      { key: 'p', dependsOn: ['q'] },
      { key: 'q', dependsOn: ['p'] },
    ];
    expect(problemsOf(tasks)).toEqual([{ field: 'tasks.1.dependsOn.0', reason: 'forms a cycle: x → y → x' }]);
  });

  it('refuses an unknown dependency, naming it', () => {
    const tasks = [{ key: 'a' }, { key: 'b', dependsOn: ['a', 'nope'] }];
    expect(problemsOf(tasks)).toEqual([
      { field: 'tasks.1.dependsOn.1', reason: 'names no task of this workflow ("nope")' },
    ]);
  });

  it('refuses a task depending on itself and a dependency listed twice', () => {
    const tasks = [{ key: 'a' }, { key: 'b', dependsOn: ['b', 'a', 'a'] }];
    expect(problemsOf(tasks)).toEqual([
      { field: 'tasks.1.dependsOn.0', reason: 'names the task itself' },
      { field: 'tasks.1.dependsOn.2', reason: 'repeats tasks.1.dependsOn.1' },
    ]);
  });

  it('refuses repeated and malformed keys', () => {
    const tasks = [
      { key: 'a' },
      { key: 'a' },
      { key: 'has space' },
      { key: 'x'.repeat(65) },
      { key: '' },
      {},
      { key: '__proto__' },
      { key: 7 },
    ];
    expect(problemsOf(tasks)).toEqual([
      { field: 'tasks.1.key', reason: 'repeats the key of tasks.0' },
      { field: 'tasks.2.key', reason: 'must be 1 to 64 letters, digits, _ or -' },
      { field: 'tasks.3.key', reason: 'must be 1 to 64 letters, digits, _ or -' },
      { field: 'tasks.4.key', reason: 'must be 1 to 64 letters, digits, _ or -' },
      { field: 'tasks.5.key', reason: 'is required' },
      { field: 'tasks.6.key', reason: 'is reserved' },
      { field: 'tasks.7.key', reason: 'must be 1 to 64 letters, digits, _ or -' },
    ]);
  });

  it('accepts keys of 64 letters, digits, _ and -', () => {
    expect(problemsOf([{ key: `A-z_0${'9'.repeat(59)}` }])).toEqual([]);
  });

  it('holds a workflow to 1..100 tasks', () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ key: `t${i}` }));
    expect(problemsOf(many)).toEqual([{ field: 'tasks', reason: 'must hold at most 100 tasks' }]);
    expect(problemsOf(many.slice(0, 100))).toEqual([]);
    expect(problemsOf([])).toEqual([{ field: 'tasks', reason: 'must hold at least one task' }]);
    expect(problemsOf('tasks')).toEqual([{ field: 'tasks', reason: 'must be an array of tasks' }]);
  });

  it('needs a task without dependencies to start from', () => {
    const tasks = [
      { key: 'a', dependsOn: ['b'] },
      { key: 'b', dependsOn: ['a'] },
    ];
    expect(problemsOf(tasks)).toEqual([
      { field: 'tasks', reason: 'must hold at least one task without dependencies' },
      { field: 'tasks.0.dependsOn.0', reason: 'forms a cycle: a → b → a' },
    ]);
  });

  it('checks the rule and the input mode, and refuses any_failed without dependencies', () => {
    const tasks = [
      { key: 'a' },
      { key: 'b', dependsOn: ['a'], when: 'sometimes', input: 'downstream' },
      { key: 'c', when: 'any_failed' },
    ];
    expect(problemsOf(tasks)).toEqual([
      { field: 'tasks.1.when', reason: 'must be one of all_succeeded, all_done, any_failed' },
      { field: 'tasks.1.input', reason: 'must be one of upstream' },
      { field: 'tasks.2.when', reason: 'any_failed needs at least one dependency' },
    ]);
  });

  it('reports shapes a schema would refuse instead of throwing on them', () => {
    const tasks = [null, { key: 'a', dependsOn: 'b' }, { key: 'b', dependsOn: [7] }];
    expect(problemsOf(tasks)).toEqual([
      { field: 'tasks.0', reason: 'must be an object' },
      { field: 'tasks.1.dependsOn', reason: 'must be an array of task keys' },
      { field: 'tasks.2.dependsOn.0', reason: 'must be a task key' },
      { field: 'tasks', reason: 'must hold at least one task without dependencies' },
    ]);
  });

  it('cuts a long unknown dependency short in its message', () => {
    const [problem] = problemsOf([{ key: 'a' }, { key: 'b', dependsOn: ['z'.repeat(5000)] }]);
    expect(problem?.reason.length).toBeLessThan(120);
  });
});
