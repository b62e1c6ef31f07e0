/**
 * The model-based fuzzer's workflow-run commands (fuzz-commands.ts takes them in): trigger (with
 * and without an Idempotency-Key), the runs listing, a run's read, retry and cancel, and another
 * tenant holding this tenant's workflow run ids. Runs move by themselves (their tasks are called),
 * so each command reads the run first and predicts from what it saw: an ended run stays as it
 * ended (SUCCEEDED, FAILED and CANCELLED are final until this test retries one), a FAILED run is
 * retried (202, one round more), a RUNNING or CANCELLED run is cancelled (202, CANCELLED), an
 * ended one is not (409). `plantWorkflowRuns` gives the sequences a FAILED run and one held
 * RUNNING (an async task whose worker never reports), so retry and cancel both reach a 202.
 */
import fc from 'fast-check';
import { eventually } from '../support/http-target.ts';
import { learn, pick as pickWorkflow } from './fuzz-workflows.ts';
import type { Answer, World } from './fuzz-world.ts';

type Command = fc.AsyncCommand<World, World['real']>;

type RunStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';
const ENDED: readonly string[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

interface KnownWorkflowRun {
  workflowRunId: string;
  workflowId: string;
  status: RunStatus;
  round: number;
  /** Set when a cancel was asked for; a run whose tasks were cancelled otherwise (its workflow deleted) has none. */
  cancelRequestedAt: string | null;
}

const known = new WeakMap<World, Map<string, KnownWorkflowRun>>();
const runsOf = (world: World) => {
  const map = known.get(world) ?? new Map<string, KnownWorkflowRun>();
  known.set(world, map);
  return map;
};
/** Idempotency-Key → workflow run id, per workflow. */
const keysOf = new WeakMap<World, Map<string, Map<string, string>>>();
const usedKeys = (world: World, workflowId: string) => {
  const all = keysOf.get(world) ?? new Map<string, Map<string, string>>();
  keysOf.set(world, all);
  const own = all.get(workflowId) ?? new Map<string, string>();
  all.set(workflowId, own);
  return own;
};

const learnRun = (world: World, run: KnownWorkflowRun) =>
  runsOf(world).set(run.workflowRunId, {
    workflowRunId: run.workflowRunId,
    workflowId: run.workflowId,
    status: run.status,
    round: run.round,
    cancelRequestedAt: run.cancelRequestedAt,
  });

/** A known run, among those last seen in `prefer` when there are any (so retry and cancel find their cases). */
function pickRun(world: World, n: number, prefer?: RunStatus): KnownWorkflowRun | undefined {
  const all = [...runsOf(world).values()];
  const preferred = prefer === undefined ? [] : all.filter((run) => run.status === prefer);
  const from = preferred.length > 0 ? preferred : all;
  return from.length === 0 ? undefined : from[n % from.length];
}

function expectThat(ok: boolean, why: string, answer: Answer): void {
  if (!ok) throw new Error(`${why}: ${answer.what}`);
}

const runPath = (id: string) => `/v1/workflow-runs/${id}`;
const read = (world: World, run: KnownWorkflowRun) =>
  world.call('GET', runPath(run.workflowRunId), { route: '/v1/workflow-runs/{workflowRunId}', shape: 'workflowRun' });

/** Reads the run (it may have moved since it was last seen) and checks that an ended one stayed as it ended. */
async function readKnown(world: World, run: KnownWorkflowRun): Promise<KnownWorkflowRun> {
  const answer = await read(world, run);
  expectThat(answer.status === 200, 'a workflow run the tenant started is not found', answer);
  expectThat(
    answer.body.workflowRunId === run.workflowRunId && answer.body.workflowId === run.workflowId,
    'another workflow run answered',
    answer,
  );
  if (ENDED.includes(run.status)) {
    expectThat(
      answer.body.status === run.status && answer.body.round === run.round,
      `a ${run.status} run in round ${run.round} changed by itself`,
      answer,
    );
  } else {
    expectThat(answer.body.round === run.round, 'a RUNNING run changed its round by itself', answer);
  }
  const seen = answer.body as KnownWorkflowRun;
  learnRun(world, seen);
  return seen;
}

// ---- trigger and list ---------------------------------------------------------------------------

const KEY_CHOICE = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('reuse' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('new' as const),
    key: fc.oneof(
      { weight: 4, arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,128}$/) },
      { weight: 1, arbitrary: fc.constantFrom('k'.repeat(129), 'a b', 'é', '') },
    ),
  }),
);
type KeyChoice = typeof KEY_CHOICE extends fc.Arbitrary<infer T> ? T : never;

class TriggerWorkflow implements Command {
  constructor(
    readonly n: number,
    readonly key: KeyChoice,
  ) {}
  check = () => true;
  async run(world: World) {
    const workflow = pickWorkflow(world, this.n);
    if (!workflow) return;
    const used = usedKeys(world, workflow.workflowId);
    const reuse = this.key.kind === 'reuse' ? [...used.keys()][this.key.pick % Math.max(used.size, 1)] : undefined;
    const key = this.key.kind === 'new' ? this.key.key : reuse;
    const answer = await world.call('POST', `/v1/workflows/${workflow.workflowId}/trigger`, {
      route: '/v1/workflows/{id}/trigger',
      shape: 'workflowRun',
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
    const validKey = key === undefined || /^[\x21-\x7e]{1,128}$/.test(key);
    if (!validKey) {
      expectThat(answer.status === 400, 'a malformed Idempotency-Key was accepted', answer);
      return;
    }
    if (answer.status === 429) {
      // The tenant's trigger bucket (shared with job triggers) ran dry: refused before anything, with a wait.
      expectThat(answer.headers.get('retry-after') !== null, 'a 429 without Retry-After', answer);
      return;
    }
    const expected = workflow.status === 'ACTIVE' ? 202 : 409;
    expectThat(answer.status === expected, `trigger of a ${workflow.status} workflow`, answer);
    if (answer.status !== 202) return;
    const run = answer.body as KnownWorkflowRun & { version: number };
    expectThat(run.workflowId === workflow.workflowId, 'trigger answered a run of another workflow', answer);
    expectThat(run.workflowRunId.startsWith(`${workflow.workflowId}_`), 'a workflow run id of another shape', answer);
    expectThat(run.version >= 1 && run.version <= workflow.version, 'a run of a version never written', answer);
    const earlier = key === undefined ? undefined : used.get(key);
    if (earlier !== undefined) {
      expectThat(
        run.workflowRunId === earlier && answer.headers.get('idempotent-replayed') === 'true',
        'a replayed Idempotency-Key started another workflow run',
        answer,
      );
      // A replay answers the run as it is now: it may have moved on since.
      learnRun(world, run);
      return;
    }
    expectThat(answer.headers.get('idempotent-replayed') === null, 'a new key answered as a replay', answer);
    expectThat(!runsOf(world).has(run.workflowRunId), 'a fresh trigger answered a run seen before', answer);
    expectThat(run.status === 'RUNNING' && run.round === 0, 'a fresh run is not RUNNING in round 0', answer);
    if (key !== undefined) used.set(key, run.workflowRunId);
    learnRun(world, run);
  }
  toString = () => `trigger workflow #${this.n} key ${JSON.stringify(this.key)}`;
}

class ListWorkflowRuns implements Command {
  constructor(
    readonly n: number,
    readonly limit: string | undefined,
    readonly next: boolean,
  ) {}
  check = () => true;
  async run(world: World) {
    const workflow = pickWorkflow(world, this.n);
    if (!workflow) return;
    const path = `/v1/workflows/${workflow.workflowId}/runs`;
    const answer = await world.call('GET', `${path}${this.limit === undefined ? '' : `?limit=${this.limit}`}`, {
      route: '/v1/workflows/{id}/runs',
      ...(this.limit === '0' || this.limit === 'x' ? {} : { shape: 'workflowRuns' as const }),
    });
    if (this.limit === '0' || this.limit === 'x') {
      expectThat(answer.status === 400, 'a bad limit was taken', answer);
      return;
    }
    expectThat(answer.status === 200, "a workflow's runs listing failed", answer);
    const items = answer.body.items as Array<KnownWorkflowRun & { scheduledFor: string }>;
    expectThat(
      items.every((run) => run.workflowId === workflow.workflowId),
      "the listing holds another workflow's run",
      answer,
    );
    const at = items.map((run) => Date.parse(run.scheduledFor));
    expectThat(
      at.every((t, i) => i === 0 || (at[i - 1] as number) > t),
      'runs not newest first',
      answer,
    );
    for (const run of items) if (!runsOf(world).has(run.workflowRunId)) learnRun(world, run);
    if (this.next && answer.body.cursor) {
      const next = await world.call('GET', `${path}?limit=${this.limit ?? 20}&cursor=${answer.body.cursor}`, {
        route: '/v1/workflows/{id}/runs',
        shape: 'workflowRuns',
      });
      expectThat(next.status === 200, 'a cursor the runs listing gave was refused', next);
      const later = (next.body.items as Array<{ scheduledFor: string }>).map((run) => Date.parse(run.scheduledFor));
      expectThat(
        later.every((t) => t < (at[at.length - 1] as number)),
        'the next page is not older than the first',
        next,
      );
    }
  }
  toString = () => `list runs of workflow #${this.n} limit ${this.limit} next ${this.next}`;
}

// ---- one run: read, retry, cancel ----------------------------------------------------------------

class GetWorkflowRun implements Command {
  constructor(
    readonly n: number,
    readonly forged: boolean,
  ) {}
  check = (world: World) => runsOf(world).size > 0;
  async run(world: World) {
    const run = pickRun(world, this.n);
    if (!run) return;
    if (!this.forged) {
      await readKnown(world, run);
      return;
    }
    // The same workflow, an instant no run has: not found, whatever the workflow is.
    const answer = await world.call('GET', runPath(`${run.workflowId}_0000000000001`), {
      route: '/v1/workflow-runs/{workflowRunId}',
    });
    expectThat(answer.status === 404, 'a workflow run never started was found', answer);
  }
  toString = () => `get workflow run #${this.n}${this.forged ? ' (forged)' : ''}`;
}

class RetryWorkflowRun implements Command {
  constructor(readonly n: number) {}
  check = (world: World) => runsOf(world).size > 0;
  async run(world: World) {
    const picked = pickRun(world, this.n, 'FAILED');
    if (!picked) return;
    const before = await readKnown(world, picked);
    const answer = await world.call('POST', `${runPath(before.workflowRunId)}/retry`, {
      route: '/v1/workflow-runs/{workflowRunId}/retry',
      shape: 'workflowRun',
    });
    if (answer.status === 202) {
      // RUNNING before: it may have ended FAILED between the read and the retry.
      expectThat(['FAILED', 'RUNNING'].includes(before.status), `retry of a ${before.status} run`, answer);
      expectThat(
        answer.body.round === before.round + 1 && answer.body.status === 'RUNNING',
        'a retry did not start the next round',
        answer,
      );
      learnRun(world, answer.body);
      return;
    }
    expectThat(answer.status === 409, 'a retry answered neither 202 nor 409', answer);
    expectThat(before.status !== 'FAILED', 'the retry of a FAILED run was refused', answer);
    // Nothing changed for the refusal: an ended run is as it was, a RUNNING one kept its round.
    await readKnown(world, before);
  }
  toString = () => `retry workflow run #${this.n}`;
}

class CancelWorkflowRun implements Command {
  constructor(
    readonly n: number,
    readonly prefer: RunStatus,
  ) {}
  check = (world: World) => runsOf(world).size > 0;
  async run(world: World) {
    const picked = pickRun(world, this.n, this.prefer);
    if (!picked) return;
    const before = await readKnown(world, picked);
    const answer = await world.call('POST', `${runPath(before.workflowRunId)}/cancel`, {
      route: '/v1/workflow-runs/{workflowRunId}/cancel',
      shape: 'workflowRun',
    });
    if (answer.status === 202) {
      expectThat(['RUNNING', 'CANCELLED'].includes(before.status), `cancel of a ${before.status} run`, answer);
      expectThat(answer.body.status === 'CANCELLED', 'a cancel answered a run that is not CANCELLED', answer);
      learnRun(world, answer.body);
      await readKnown(world, answer.body);
      return;
    }
    expectThat(answer.status === 409, 'a cancel answered neither 202 nor 409', answer);
    // A CANCELLED run (asked, or its tasks cancelled with a deleted workflow) is a 202 again (above).
    expectThat(before.status !== 'CANCELLED', 'the cancel of a cancelled run was refused', answer);
    if (before.status === 'RUNNING') {
      // Only when it ended between the read and the cancel (SUCCEEDED, FAILED, or CANCELLED by its tasks).
      const after = await readKnown(world, before);
      expectThat(
        after.round === before.round && after.cancelRequestedAt === before.cancelRequestedAt,
        "another tenant's request changed the run",
        answer,
      );
      const ended = ['SUCCEEDED', 'FAILED'].includes(after.status) || after.cancelRequestedAt === null;
      expectThat(ended && after.status !== 'RUNNING', 'the cancel of a RUNNING run was refused', answer);
    }
  }
  toString = () => `cancel workflow run #${this.n} (${this.prefer} preferred)`;
}

/** Another tenant holding this tenant's workflow run ids: a 404 on every route, and the run untouched. */
class OtherTenantWorkflowRun implements Command {
  constructor(
    readonly n: number,
    readonly action: 'get' | 'retry' | 'cancel',
  ) {}
  check = (world: World) => runsOf(world).size > 0;
  async run(world: World) {
    const picked = pickRun(world, this.n, this.action === 'retry' ? 'FAILED' : 'RUNNING');
    if (!picked) return;
    const before = await readKnown(world, picked);
    const suffix = this.action === 'get' ? '' : `/${this.action}`;
    const answer = await world.call(
      this.action === 'get' ? 'GET' : 'POST',
      `${runPath(before.workflowRunId)}${suffix}`,
      {
        route: `other tenant /v1/workflow-runs/{workflowRunId}${suffix}`,
        token: world.real.otherToken,
      },
    );
    expectThat(answer.status === 404, "another tenant's workflow run id is not a 404", answer);
    const after = await readKnown(world, before);
    expectThat(
      after.round === before.round && after.cancelRequestedAt === before.cancelRequestedAt,
      "another tenant's request changed the run",
      answer,
    );
  }
  toString = () => `other tenant ${this.action} workflow run #${this.n}`;
}

export function workflowRunCommands() {
  return [
    fc.tuple(fc.nat(), KEY_CHOICE).map(([n, key]) => new TriggerWorkflow(n, key)),
    fc
      .tuple(fc.nat(), fc.constantFrom(undefined, '1', '2', '0', 'x'), fc.boolean())
      .map(([n, limit, next]) => new ListWorkflowRuns(n, limit, next)),
    fc.tuple(fc.nat(), fc.boolean()).map(([n, forged]) => new GetWorkflowRun(n, forged)),
    fc.nat().map((n) => new RetryWorkflowRun(n)),
    fc
      .tuple(fc.nat(), fc.constantFrom<RunStatus>('RUNNING', 'CANCELLED', 'SUCCEEDED', 'FAILED'))
      .map(([n, prefer]) => new CancelWorkflowRun(n, prefer)),
    fc
      .tuple(fc.nat(), fc.constantFrom('get' as const, 'retry' as const, 'cancel' as const))
      .map(([n, action]) => new OtherTenantWorkflowRun(n, action)),
  ];
}

/**
 * Two workflow runs for the sequences to start from: one FAILED (its first task's target answers
 * 500, one attempt; its dependent is skipped) and one held RUNNING (its task is async and its
 * worker never reports, trusted for an hour). Their workflows stay the model's to trigger again.
 */
export async function plantWorkflowRuns(world: World): Promise<void> {
  const { baseUrl } = world.real;
  const hold = { heartbeatTimeoutSeconds: 3600, maxDurationSeconds: 86_400, cancelGraceSeconds: 3600 };
  const definitions = {
    FAILED: [
      { key: 'fails', target: { url: `${baseUrl}/fuzz-fail` }, retry: { maxAttempts: 1 } },
      { key: 'after', target: { url: `${baseUrl}/fuzz-workflow` }, dependsOn: ['fails'] },
    ],
    RUNNING: [
      { key: 'holds', target: { url: `${baseUrl}/fuzz-async` }, async: hold },
      { key: 'after', target: { url: `${baseUrl}/fuzz-workflow` }, dependsOn: ['holds'] },
    ],
  } as const;
  for (const [status, tasks] of Object.entries(definitions)) {
    const created = await world.call('POST', '/v1/workflows', {
      route: 'setup',
      body: { name: `planted-${status}`, tasks },
    });
    if (created.status !== 201) throw new Error(`planting a workflow: ${created.what}`);
    learn(world, created.body);
    const triggered = await world.call('POST', `/v1/workflows/${created.body.workflowId}/trigger`, {
      route: 'setup',
      shape: 'workflowRun',
    });
    if (triggered.status !== 202) throw new Error(`planting a workflow run: ${triggered.what}`);
    const id = triggered.body.workflowRunId as string;
    const settled = await eventually(
      async () => (await world.call('GET', runPath(id), { route: 'setup', shape: 'workflowRun' })).body,
      (run: KnownWorkflowRun & { tasks: Array<{ key: string; status: string }> }) =>
        status === 'FAILED'
          ? run.status === 'FAILED'
          : run.tasks.some((task) => task.key === 'holds' && task.status === 'RUNNING'),
      20_000,
    );
    if (settled.status !== status) throw new Error(`the planted run is ${settled.status}, not ${status}`);
    learnRun(world, settled);
  }
}
