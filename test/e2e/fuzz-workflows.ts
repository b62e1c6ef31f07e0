/**
 * The model-based fuzzer's workflow-definition commands (fuzz-commands.ts takes them in): create,
 * get, list, PATCH, pause, resume and delete of workflows, reusing the ids earlier answers gave.
 * Workflows are kept calm (no schedule, or one far ahead), so each one's status and version are
 * known and every transition's answer is predicted, as the job commands do for jobs.
 */
import fc from 'fast-check';
import { unicodeText } from './fuzz-edges.ts';
import type { Answer, World } from './fuzz-world.ts';

type Command = fc.AsyncCommand<World, World['real']>;

export interface KnownWorkflow {
  workflowId: string;
  status: string;
  version: number;
}

/** The workflows each world has seen (the World itself knows jobs only). */
const known = new WeakMap<World, Map<string, KnownWorkflow>>();
const workflowsOf = (world: World) => {
  const map = known.get(world) ?? new Map<string, KnownWorkflow>();
  known.set(world, map);
  return map;
};
/** The workflows the tenant was answered 201 for (every workflow run and task run must belong to one). */
export const createdWorkflowIds = (world: World) => new Set(workflowsOf(world).keys());
export const pick = (world: World, n: number) => {
  const all = [...workflowsOf(world).values()];
  return all.length === 0 ? undefined : all[n % all.length];
};
export const learn = (world: World, view: KnownWorkflow) =>
  workflowsOf(world).set(view.workflowId, { workflowId: view.workflowId, status: view.status, version: view.version });

function expectThat(ok: boolean, why: string, answer: Answer): void {
  if (!ok) throw new Error(`${why}: ${answer.what}`);
}

const DAY = 86_400_000;
const key = fc.constantFrom('a', 'b', 'c', 'd');
/** A calm schedule: none, or its first occurrence at least a day ahead. */
const schedule = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 1, max: 300 }).map((days) => ({
    type: 'interval',
    everySeconds: 3600,
    startAt: new Date(Date.now() + days * DAY).toISOString(),
  })),
);

/** Task lists: mostly a valid chain or fan-in, sometimes a cycle, an unknown key or a bad target. */
function tasks(baseUrl: string) {
  const target = fc.oneof(
    { weight: 4, arbitrary: fc.constant({ url: `${baseUrl}/fuzz-workflow` }) },
    { weight: 1, arbitrary: fc.constantFrom({ url: 'ftp://x' }, { url: '' }, {}, 'x') },
  );
  const valid = fc.tuple(fc.integer({ min: 1, max: 4 }), target).map(([count, t]) =>
    Array.from({ length: count }, (_, i) => ({
      key: `t${i}`,
      target: t,
      ...(i === 0 ? {} : { dependsOn: [`t${i - 1}`] }),
    })),
  );
  const odd = fc.array(
    fc.record(
      { key, target, dependsOn: fc.array(fc.oneof(key, fc.constant('ghost')), { maxLength: 3 }) },
      { requiredKeys: ['key'] },
    ),
    { maxLength: 4 },
  );
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: odd });
}

export function workflowCommands(baseUrl: string) {
  const createBody = fc.record(
    {
      name: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), unicodeText),
      schedule,
      misfire: fc.constantFrom('skip', 'fire_all', 'nope'),
      tasks: tasks(baseUrl),
    },
    { requiredKeys: ['tasks'] },
  );
  const patchBody = fc.record(
    {
      name: fc.string({ maxLength: 20 }),
      schedule: fc.oneof(
        schedule.filter((s) => s !== undefined),
        fc.constant(null),
      ),
      overlap: fc.constantFrom('allow', 'forbid', 'x'),
      onFailure: fc.constantFrom(null, { url: `${baseUrl}/fuzz-failed` }),
      tasks: tasks(baseUrl),
    },
    { requiredKeys: [] },
  );
  return [
    createBody.map((body) => new CreateWorkflow(body)),
    createBody.map((body) => new CreateWorkflow(body)),
    fc.nat().map((n) => new GetWorkflow(n)),
    fc.tuple(fc.constantFrom(undefined, '1', '2', '0', 'x'), fc.boolean()).map(([l, c]) => new ListWorkflows(l, c)),
    fc
      .tuple(fc.nat(), fc.constantFrom('current', 'current', 'stale', 'absent'), patchBody)
      .map(([n, ifMatch, body]) => new PatchWorkflow(n, ifMatch, body)),
    fc
      .tuple(fc.nat(), fc.constantFrom('pause', 'resume', 'delete', 'pause', 'resume'))
      .map(([n, action]) => new WorkflowTransition(n, action)),
  ];
}

class CreateWorkflow implements Command {
  constructor(readonly body: Record<string, unknown>) {}
  check = () => true;
  async run(world: World) {
    const answer = await world.call('POST', '/v1/workflows', { route: '/v1/workflows', body: this.body });
    expectThat([201, 400].includes(answer.status), 'a workflow create answered neither 201 nor 400', answer);
    if (answer.status === 201) learn(world, answer.body);
  }
  toString = () => `create workflow ${JSON.stringify(this.body).slice(0, 300)}`;
}

class GetWorkflow implements Command {
  constructor(readonly n: number) {}
  check = (world: World) => workflowsOf(world).size > 0;
  async run(world: World) {
    const workflow = pick(world, this.n);
    if (!workflow) return;
    const answer = await world.call('GET', `/v1/workflows/${workflow.workflowId}`, { route: '/v1/workflows/{id}' });
    expectThat(answer.status === 200, 'a workflow the tenant created is not found', answer);
    expectThat(answer.body.status === workflow.status, `the model expected ${workflow.status}`, answer);
    expectThat(answer.body.version === workflow.version, `the model expected version ${workflow.version}`, answer);
    expectThat(answer.headers.get('etag') === `"${workflow.version}"`, 'ETag is not the version', answer);
  }
  toString = () => `get workflow #${this.n}`;
}

class ListWorkflows implements Command {
  constructor(
    readonly limit: string | undefined,
    readonly withCursor: boolean,
  ) {}
  check = () => true;
  async run(world: World) {
    const first = await world.call('GET', `/v1/workflows${this.limit === undefined ? '' : `?limit=${this.limit}`}`, {
      route: '/v1/workflows',
    });
    if (this.limit === '0' || this.limit === 'x') {
      expectThat(first.status === 400, 'a bad limit was taken', first);
      return;
    }
    expectThat(first.status === 200, 'the workflow listing failed', first);
    const ids = (first.body.items as KnownWorkflow[]).map((w) => w.workflowId);
    expectThat(
      ids.every((id, i) => i === 0 || (ids[i - 1] as string) < id),
      'workflows not in creation order',
      first,
    );
    if (this.withCursor && first.body.cursor) {
      const next = await world.call('GET', `/v1/workflows?limit=${this.limit ?? 20}&cursor=${first.body.cursor}`, {
        route: '/v1/workflows',
      });
      expectThat(next.status === 200, 'a cursor the listing gave was refused', next);
    }
  }
  toString = () => `list workflows limit ${this.limit} cursor ${this.withCursor}`;
}

class PatchWorkflow implements Command {
  constructor(
    readonly n: number,
    readonly ifMatch: 'current' | 'stale' | 'absent',
    readonly body: Record<string, unknown>,
  ) {}
  check = (world: World) => workflowsOf(world).size > 0;
  async run(world: World) {
    const workflow = pick(world, this.n);
    if (!workflow) return;
    const value = { current: `"${workflow.version}"`, stale: `"${workflow.version - 1}"`, absent: undefined }[
      this.ifMatch
    ];
    const answer = await world.call('PATCH', `/v1/workflows/${workflow.workflowId}`, {
      route: '/v1/workflows/{id}',
      body: this.body,
      headers: value === undefined ? {} : { 'if-match': value },
    });
    if (answer.status === 200) {
      expectThat(this.ifMatch === 'current', `a PATCH with If-Match ${this.ifMatch} was applied`, answer);
      expectThat(answer.body.version === workflow.version + 1, 'a PATCH did not bump the version by one', answer);
      learn(world, answer.body);
    } else if (this.ifMatch === 'absent') {
      expectThat([400, 428].includes(answer.status), 'a PATCH without If-Match', answer);
    } else if (answer.status !== 400) {
      expectThat(answer.status === 409, 'a stale PATCH or one of a cancelled workflow', answer);
      expectThat(this.ifMatch === 'stale' || workflow.status === 'CANCELLED', 'a fresh PATCH refused', answer);
    }
  }
  toString = () => `patch workflow #${this.n} ${this.ifMatch} ${JSON.stringify(this.body).slice(0, 300)}`;
}

const TRANSITIONS = {
  pause: { from: ['ACTIVE'], to: 'PAUSED', method: 'POST', suffix: '/pause' },
  resume: { from: ['PAUSED'], to: 'ACTIVE', method: 'POST', suffix: '/resume' },
  delete: { from: ['ACTIVE', 'PAUSED', 'CANCELLED'], to: 'CANCELLED', method: 'DELETE', suffix: '' },
} as const;

class WorkflowTransition implements Command {
  constructor(
    readonly n: number,
    readonly action: keyof typeof TRANSITIONS,
  ) {}
  check = (world: World) => workflowsOf(world).size > 0;
  async run(world: World) {
    const workflow = pick(world, this.n);
    if (!workflow) return;
    const rule = TRANSITIONS[this.action];
    const answer = await world.call(rule.method, `/v1/workflows/${workflow.workflowId}${rule.suffix}`, {
      route: `/v1/workflows/{id}${rule.suffix}`,
    });
    const allowed = (rule.from as readonly string[]).includes(workflow.status);
    expectThat(answer.status === (allowed ? 200 : 409), `${this.action} of a ${workflow.status} workflow`, answer);
    if (answer.status !== 200) return;
    expectThat(answer.body.status === rule.to, `${this.action} left it ${answer.body.status}`, answer);
    learn(world, answer.body);
  }
  toString = () => `${this.action} workflow #${this.n}`;
}
