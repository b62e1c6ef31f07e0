/**
 * parse-workflow.ts: a workflow body read with the job's own parsers (target, retry, timeout,
 * delivery, async, schedule, onFailure) and the graph rules, every problem named by its field.
 */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core/errors';
import { parseCreateWorkflow, parseUpdateWorkflow } from '#core/workflows/parse-workflow';

const NOW = Date.UTC(2026, 10, 25, 3, 0, 0);
const url = (path: string) => `https://etl.example.com/${path}`;

function problemsOf(act: () => unknown): { field: string; reason: string }[] {
  try {
    act();
  } catch (error) {
    if (error instanceof ValidationError) return error.details;
    throw error;
  }
  throw new Error('no ValidationError');
}

describe('parseCreateWorkflow', () => {
  it('reads each task as a job would be read, with the job defaults, and the graph with its rules', () => {
    const parsed = parseCreateWorkflow(
      {
        name: 'nightly-etl',
        schedule: { type: 'cron', expression: '0 2 * * *', timezone: 'Europe/Berlin' },
        overlap: 'forbid',
        onFailure: { url: url('failed') },
        tasks: [
          { key: 'extract', target: { url: url('extract'), body: { day: 1 }, secretHeaders: { authorization: 's3' } } },
          {
            key: 'load',
            target: { url: url('load'), method: 'PUT' },
            dependsOn: ['extract'],
            when: 'all_done',
            input: 'upstream',
            retry: { maxAttempts: 5 },
            timeoutSeconds: 120,
            delivery: 'at-most-once',
            async: { heartbeatTimeoutSeconds: 60 },
          },
        ],
      },
      NOW,
    );
    expect(parsed.name).toBe('nightly-etl');
    expect(parsed.schedule).toMatchObject({ type: 'cron', expression: '0 2 * * *', timezone: 'Europe/Berlin' });
    expect(parsed.policies).toEqual({ misfire: 'fire_once', overlap: 'forbid' });
    expect(parsed.onFailureUrl).toBe(url('failed'));
    const [extract, load] = parsed.tasks;
    expect(extract).toMatchObject({
      key: 'extract',
      dependsOn: [],
      when: 'all_succeeded',
      // A JSON body is serialized once, with its content type, as a job's.
      target: {
        url: url('extract'),
        method: 'POST',
        body: '{"day":1}',
        headers: { 'content-type': 'application/json' },
      },
      retry: { maxAttempts: 3, initialDelaySeconds: 1 },
      timeoutSeconds: 30,
      delivery: 'at-least-once',
      // Kept apart from the target: only the handler seals them into it.
      secretHeaders: { authorization: 's3' },
    });
    expect(extract?.target.secretHeaders).toBeUndefined();
    expect(extract?.input).toBeUndefined();
    expect(extract?.async).toBeUndefined();
    expect(load).toMatchObject({
      key: 'load',
      dependsOn: ['extract'],
      when: 'all_done',
      input: 'upstream',
      target: { method: 'PUT' },
      retry: { maxAttempts: 5 },
      timeoutSeconds: 120,
      delivery: 'at-most-once',
      async: { heartbeatTimeoutSeconds: 60 },
    });
  });

  it('takes a workflow without a schedule: it runs only when triggered', () => {
    const parsed = parseCreateWorkflow({ tasks: [{ key: 'only', target: { url: url('only') } }] }, NOW);
    expect(parsed.schedule).toBeUndefined();
    expect(parsed.tasks).toHaveLength(1);
  });

  it("names every task's job-field problem under tasks.<index>, together with the head's", () => {
    const problems = problemsOf(() =>
      parseCreateWorkflow(
        {
          schedule: { type: 'cron', expression: 'not a cron', timezone: 'UTC' },
          onFailure: { url: 'http://127.0.0.1/x' },
          tasks: [
            { key: 'a', target: { url: url('a') } },
            { key: 'b', target: { url: 'http://169.254.169.254/latest' }, dependsOn: ['a'] },
            {
              key: 'c',
              target: { url: url('c'), headers: { host: 'evil' } },
              dependsOn: ['a'],
              retry: { initialDelaySeconds: 600, maxDelaySeconds: 60 },
              timeoutSeconds: 0,
              async: { heartbeatTimeoutSeconds: -1 },
            },
          ],
        },
        NOW,
      ),
    );
    const fields = problems.map((p) => p.field);
    expect(fields).toContain('schedule.expression');
    expect(fields).toContain('onFailure.url');
    expect(fields).toContain('tasks.1.target.url');
    expect(fields.some((f) => f.startsWith('tasks.2.target.headers'))).toBe(true);
    expect(fields).toContain('tasks.2.retry.initialDelaySeconds');
    expect(fields).toContain('tasks.2.timeoutSeconds');
    expect(fields).toContain('tasks.2.async.heartbeatTimeoutSeconds');
    expect(fields.some((f) => f.startsWith('tasks.0'))).toBe(false);
  });

  it('surfaces the graph problems: a cycle naming its tasks, an unknown dependency naming it', () => {
    const cycle = problemsOf(() =>
      parseCreateWorkflow(
        {
          tasks: [
            { key: 'start', target: { url: url('s') } },
            { key: 'x', target: { url: url('x') }, dependsOn: ['start', 'z'] },
            { key: 'y', target: { url: url('y') }, dependsOn: ['x'] },
            { key: 'z', target: { url: url('z') }, dependsOn: ['y'] },
          ],
        },
        NOW,
      ),
    );
    expect(cycle).toHaveLength(1);
    expect(cycle[0]?.field).toMatch(/^tasks\.\d\.dependsOn/);
    for (const key of ['x', 'y', 'z']) expect(cycle[0]?.reason).toContain(key);
    expect(cycle[0]?.reason).not.toContain('start');

    const unknown = problemsOf(() =>
      parseCreateWorkflow(
        {
          tasks: [
            { key: 'a', target: { url: url('a') } },
            { key: 'b', target: { url: url('b') }, dependsOn: ['ghost'] },
          ],
        },
        NOW,
      ),
    );
    expect(unknown).toEqual([{ field: 'tasks.1.dependsOn.0', reason: expect.stringContaining('"ghost"') }]);
  });

  it('reports graph and task problems together, and nothing per task for too many tasks', () => {
    const both = problemsOf(() =>
      parseCreateWorkflow(
        {
          tasks: [
            { key: 'a', target: { url: 'ftp://a' } },
            { key: 'a', target: { url: url('b') } },
          ],
        },
        NOW,
      ),
    );
    expect(both.map((p) => p.field).sort()).toEqual(['tasks.0.target.url', 'tasks.1.key']);

    const many = Array.from({ length: 101 }, (_, i) => ({ key: `t${i}`, target: { url: 'ftp://bad' } }));
    expect(problemsOf(() => parseCreateWorkflow({ tasks: many }, NOW))).toEqual([
      { field: 'tasks', reason: expect.stringContaining('at most 100') },
    ]);
  });

  it('does not throw anything but a ValidationError for a body no schema checked', () => {
    const odd = [
      { tasks: 'no' },
      { tasks: [null, 3, []] },
      { tasks: [{ key: 'a' }] },
      { tasks: [{ key: 'a', target: { url: 3 } }] },
      { tasks: [{ key: 'a', target: 'x' }] },
    ];
    for (const body of odd) expect(problemsOf(() => parseCreateWorkflow(body as never, NOW)).length).toBeGreaterThan(0);
  });
});

describe('parseUpdateWorkflow', () => {
  it('reads null as "remove" for schedule and onFailure, and tasks as a whole new list', () => {
    const change = parseUpdateWorkflow(
      { schedule: null, onFailure: null, misfire: 'skip', tasks: [{ key: 'n', target: { url: url('n') } }] },
      NOW,
    );
    expect(change.schedule).toBeNull();
    expect(change.onFailureUrl).toBeNull();
    expect(change.policies).toEqual({ misfire: 'skip' });
    expect(change.tasks?.map((t) => t.key)).toEqual(['n']);
  });

  it('refuses an empty change and names bad tasks as at creation', () => {
    expect(problemsOf(() => parseUpdateWorkflow({}, NOW))).toEqual([
      { field: 'body', reason: 'must change at least one field' },
    ]);
    const problems = problemsOf(() =>
      parseUpdateWorkflow({ tasks: [{ key: 'a', target: { url: url('a') }, dependsOn: ['a'] }] }, NOW),
    );
    expect(problems.map((p) => p.field)).toContain('tasks.0.dependsOn.0');
  });
});
