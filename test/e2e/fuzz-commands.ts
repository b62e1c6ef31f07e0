/**
 * The model-based fuzzer's commands (fast-check `fc.commands`): one per thing a tenant can do
 * through the API's route table, each drawing its ids and cursors from what earlier answers
 * revealed (fuzz-world.ts), each checking the answer against what the model predicts: the status a
 * transition must answer for a job whose state is known, the order and filters of a listing, the
 * run a replayed Idempotency-Key must return, a 404 for another tenant, nothing written for a 4xx.
 */
import fc from 'fast-check';
import { createBody, FUZZ_FLOW_KEYS, patchBody } from './fuzz-bodies.ts';
import {
  decodeCursor,
  encodeKey,
  encoding,
  keyInside,
  keyMutation,
  keyProblemsForDynamoDb,
  mutateKey,
} from './fuzz-cursors.ts';
import { instantText, numberNear, unicodeText } from './fuzz-edges.ts';
import { workflowRunCommands } from './fuzz-workflow-runs.ts';
import { workflowCommands } from './fuzz-workflows.ts';
import type { Answer, Listing, Real, World } from './fuzz-world.ts';

type Command = fc.AsyncCommand<World, Real>;

function expectThat(ok: boolean, why: string, answer: Answer): void {
  if (!ok) throw new Error(`${why}: ${answer.what}`);
}

/** A cursor a listing accepted (200) must be one DynamoDB accepts as a start key (fuzz-cursors.ts). */
function acceptedCursorFitsDynamoDb(cursor: string | undefined, answer: Answer): void {
  if (answer.status !== 200) return;
  const key = keyInside(cursor);
  const problems = key === undefined ? [] : keyProblemsForDynamoDb(key);
  expectThat(problems.length === 0, `a cursor DynamoDB would refuse (${problems.join('; ')}) was accepted`, answer);
}

/** A rejected request against a job whose state only this test changes must leave it as it was. */
async function unchangedOn4xx(world: World, jobId: string | undefined, act: () => Promise<Answer>): Promise<Answer> {
  const known = jobId === undefined ? undefined : world.jobs.get(jobId);
  const before = known?.stable ? await world.footprint(known.jobId) : undefined;
  const answer = await act();
  if (before !== undefined && known && answer.status >= 400) {
    const after = await world.footprint(known.jobId);
    expectThat(after === before, `a ${answer.status} wrote (${before} → ${after})`, answer);
  }
  return answer;
}

// ---- cursors --------------------------------------------------------------------------------

const cursorChoice = fc.record({
  from: fc.constantFrom('none', 'real', 'real', 'mutated', 'mutated', 'mutated', 'mutated', 'otherListing', 'junk'),
  pick: fc.nat(),
  mutation: keyMutation,
  encoding,
  junk: fc.oneof(
    fc.string({ maxLength: 40 }),
    unicodeText,
    fc.constantFrom('e30', 'bnVsbA', 'W10', 'MQ', 'x'.repeat(2049)),
  ),
});
type CursorChoice = typeof cursorChoice extends fc.Arbitrary<infer T> ? T : never;

/** The cursor a choice names, from the listing's real cursors; `mutated` tells whether it was changed. */
function cursorFor(
  world: World,
  listing: Listing,
  choice: CursorChoice,
  jobId?: string,
): { cursor?: string; mutated: boolean } {
  const own = world.cursors[listing].filter((c) => jobId === undefined || world.runsCursorJob.get(c) === jobId);
  const others = (Object.keys(world.cursors) as Listing[])
    .filter((l) => l !== listing)
    .flatMap((l) => world.cursors[l]);
  const pick = <T>(list: T[]) => (list.length === 0 ? undefined : list[choice.pick % list.length]);
  switch (choice.from) {
    case 'real':
      return { cursor: pick(own), mutated: false };
    case 'mutated': {
      const real = pick(own) ?? pick(others);
      if (real === undefined) return { mutated: false };
      return { cursor: encodeKey(mutateKey(decodeCursor(real), choice.mutation), choice.encoding), mutated: true };
    }
    case 'otherListing':
      return { cursor: pick(others), mutated: true };
    case 'junk':
      return { cursor: choice.junk, mutated: true };
    default:
      return { mutated: false };
  }
}

/** Mostly a small valid page (so listings answer and return cursors), sometimes one at or past its range. */
const limit = fc.option(
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 5 }).map(String) },
    { weight: 1, arbitrary: numberNear(1, 100).map(String) },
    { weight: 1, arbitrary: fc.constantFrom('', '0x10', ' 3') },
  ),
  { nil: undefined },
);

const queryOf = (params: Record<string, string | undefined>) => {
  const entries = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries)}`;
};

// ---- jobs -------------------------------------------------------------------------------------

class CreateJob implements Command {
  constructor(readonly body: Record<string, unknown>) {}
  check = () => true;
  async run(world: World) {
    const before = await world.jobCount();
    const answer = await world.call('POST', '/v1/jobs', { route: '/v1/jobs', shape: 'job', body: this.body });
    const after = await world.jobCount();
    if (answer.status === 201) {
      expectThat(after === before + 1, 'a create answered 201 without exactly one job', answer);
      world.created.add(answer.body.jobId);
      world.learnJob(answer.body);
    } else {
      expectThat(after === before, `a rejected create (${answer.status}) wrote a job`, answer);
    }
  }
  toString = () => `create ${JSON.stringify(this.body).slice(0, 300)}`;
}

class GetJob implements Command {
  constructor(readonly pick: number) {}
  check = (world: World) => world.jobs.size > 0;
  async run(world: World) {
    const job = world.pickJob(this.pick);
    if (!job) return;
    const answer = await world.call('GET', `/v1/jobs/${job.jobId}`, { route: '/v1/jobs/{id}', shape: 'job' });
    expectThat(answer.status === 200, 'a job the tenant created is not found', answer);
    if (job.stable) expectThat(answer.body.status === job.status, `the model expected ${job.status}`, answer);
    expectThat(
      answer.headers.get('etag')?.replaceAll('"', '') === String(answer.body.version),
      'ETag is not the version',
      answer,
    );
    // README: `upcoming` is [] unless ACTIVE; `pausedAt` is there while paused.
    const { status, upcoming, pausedAt } = answer.body as { status: string; upcoming?: string[]; pausedAt?: string };
    expectThat(
      Array.isArray(upcoming) && (status === 'ACTIVE' || upcoming.length === 0),
      'upcoming of a job not ACTIVE',
      answer,
    );
    expectThat((status === 'PAUSED') === (pausedAt !== undefined), 'pausedAt and PAUSED disagree', answer);
    world.learnJob(answer.body);
    if (answer.body.latestRun) world.learnRun(answer.body.latestRun.runId);
  }
  toString = () => `get job #${this.pick}`;
}

class ListJobs implements Command {
  constructor(
    readonly params: { status?: string; type?: string; name?: string; limit?: string },
    readonly cursor: CursorChoice,
  ) {}
  check = () => true;
  async run(world: World) {
    const { cursor, mutated } = cursorFor(world, 'jobs', this.cursor);
    const answer = await world.call('GET', `/v1/jobs${queryOf({ ...this.params, cursor })}`, {
      route: '/v1/jobs',
      shape: 'jobs',
    });
    acceptedCursorFitsDynamoDb(cursor, answer);
    if (answer.status !== 200) {
      expectThat(answer.status === 400, 'a listing answered neither 200 nor 400', answer);
      expectThat(
        mutated ||
          this.params.limit !== undefined ||
          this.params.status !== undefined ||
          this.params.type !== undefined ||
          this.params.name !== undefined,
        'a real cursor with no other parameter was refused',
        answer,
      );
      return;
    }
    const items = answer.body.items as Array<{
      jobId: string;
      status: string;
      schedule: { type: string };
      name?: string;
    }>;
    const ids = items.map((job) => job.jobId);
    expectThat(
      ids.every((id, i) => i === 0 || (ids[i - 1] as string) < id),
      'jobs not in creation order',
      answer,
    );
    if (this.params.status)
      expectThat(
        items.every((job) => job.status === this.params.status),
        'status filter not applied',
        answer,
      );
    if (this.params.type)
      expectThat(
        items.every((job) => job.schedule.type === this.params.type),
        'type filter not applied',
        answer,
      );
    if (this.params.name)
      expectThat(
        items.every((job) => job.name?.startsWith(this.params.name as string)),
        'name prefix not applied',
        answer,
      );
    for (const job of items) world.learnJob(job as never);
    world.learnCursor('jobs', answer.body.cursor);
  }
  toString = () => `list jobs ${JSON.stringify(this.params)} cursor ${JSON.stringify(this.cursor)}`;
}

class ListRuns implements Command {
  constructor(
    readonly pick: number,
    readonly params: { status?: string; from?: string; to?: string; limit?: string },
    readonly cursor: CursorChoice,
  ) {}
  check = (world: World) => world.jobs.size > 0;
  async run(world: World) {
    const job = world.pickJob(this.pick);
    if (!job) return;
    const { cursor } = cursorFor(world, 'runs', this.cursor, job.jobId);
    const answer = await world.call('GET', `/v1/jobs/${job.jobId}/runs${queryOf({ ...this.params, cursor })}`, {
      route: '/v1/jobs/{id}/runs',
      shape: 'runs',
    });
    acceptedCursorFitsDynamoDb(cursor, answer);
    if (answer.status !== 200) {
      expectThat(answer.status === 400, 'a runs listing of a real job answered neither 200 nor 400', answer);
      return;
    }
    const items = answer.body.items as Array<{
      runId: string;
      jobId: string;
      scheduledFor: string;
      attempt: number;
      status: string;
    }>;
    expectThat(
      items.every((run) => run.jobId === job.jobId),
      'a run of another job listed',
      answer,
    );
    const order = items.map((run) => [Date.parse(run.scheduledFor), run.attempt] as const);
    expectThat(
      order.every(
        ([at, attempt], i) =>
          i === 0 ||
          at < (order[i - 1] as readonly [number, number])[0] ||
          (at === (order[i - 1] as readonly [number, number])[0] &&
            attempt < (order[i - 1] as readonly [number, number])[1]),
      ),
      'runs not newest first',
      answer,
    );
    const from = this.params.from === undefined ? undefined : Date.parse(this.params.from);
    const to = this.params.to === undefined ? undefined : Date.parse(this.params.to);
    if (from !== undefined && !Number.isNaN(from))
      expectThat(
        order.every(([at]) => at >= from),
        'a run before from',
        answer,
      );
    if (to !== undefined && !Number.isNaN(to))
      expectThat(
        order.every(([at]) => at <= to),
        'a run after to',
        answer,
      );
    if (this.params.status)
      expectThat(
        items.every((run) => run.status === this.params.status),
        'status filter not applied',
        answer,
      );
    for (const run of items) world.learnRun(run.runId);
    world.learnCursor('runs', answer.body.cursor, job.jobId);
  }
  toString = () => `list runs of #${this.pick} ${JSON.stringify(this.params)} cursor ${JSON.stringify(this.cursor)}`;
}

const IF_MATCH = [
  'current',
  'current-quoted',
  'current-weak',
  'stale',
  'absent',
  'bare-star',
  'weak-spaced',
  'huge',
  'garbage',
] as const;

class PatchJob implements Command {
  constructor(
    readonly pick: number,
    readonly ifMatch: (typeof IF_MATCH)[number],
    readonly body: Record<string, unknown>,
  ) {}
  check = (world: World) => world.jobs.size > 0;
  async run(world: World) {
    const job = world.pickJob(this.pick);
    if (!job) return;
    const v = job.version;
    const value = {
      current: String(v),
      'current-quoted': `"${v}"`,
      'current-weak': `W/"${v}"`,
      stale: `"${Math.max(v - 1, 0)}"`,
      absent: undefined,
      'bare-star': '*',
      'weak-spaced': `W/ "${v}"`,
      huge: '9'.repeat(400),
      garbage: 'v1',
    }[this.ifMatch];
    const answer = await unchangedOn4xx(world, job.jobId, () =>
      world.call('PATCH', `/v1/jobs/${job.jobId}`, {
        route: '/v1/jobs/{id}',
        shape: 'job',
        body: this.body,
        headers: value === undefined ? {} : { 'if-match': value },
      }),
    );
    if (answer.status === 200) {
      expectThat(this.ifMatch.startsWith('current'), `a PATCH with If-Match ${this.ifMatch} was applied`, answer);
      expectThat(answer.body.version > v, 'a PATCH did not bump the version', answer);
      world.learnJob(answer.body);
    } else if (this.ifMatch === 'absent') {
      expectThat([400, 428].includes(answer.status), 'a PATCH without If-Match', answer);
    } else if (job.stable && this.ifMatch === 'stale' && answer.status !== 400) {
      expectThat(answer.status === 409, 'a PATCH at a stale version', answer);
    } else if (job.stable && TERMINAL_STATUSES.includes(job.status) && answer.status !== 400) {
      expectThat(answer.status === 409, 'a PATCH of an ended job', answer);
    }
  }
  toString = () => `patch #${this.pick} if-match ${this.ifMatch} ${JSON.stringify(this.body).slice(0, 300)}`;
}

const TERMINAL_STATUSES = ['CANCELLED', 'COMPLETED', 'FAILED'];

/** What pause, resume and cancel must answer for a job whose state the model knows. */
const TRANSITIONS = {
  pause: { from: ['ACTIVE'], to: 'PAUSED', same: [] as string[] },
  resume: { from: ['PAUSED'], to: 'ACTIVE', same: [] as string[] },
  cancel: { from: ['ACTIVE', 'PAUSED'], to: 'CANCELLED', same: ['CANCELLED'] as string[] },
};

class Transition implements Command {
  constructor(
    readonly pick: number,
    readonly action: keyof typeof TRANSITIONS,
  ) {}
  check = (world: World) => world.jobs.size > 0;
  async run(world: World) {
    // Every other draw takes a job the action can move, when the model knows one: the workflow
    // commands share the draws, and most known jobs have ended, so without it a sequence may never
    // see a 200 (the premise at the end of fuzz.test.ts needs both the 200 and the 409 of each).
    const movable = [...world.jobs.values()].filter(
      (known) => known.stable && (TRANSITIONS[this.action].from as string[]).includes(known.status),
    );
    const job =
      this.pick % 2 === 0 && movable.length > 0 ? movable[this.pick % movable.length] : world.pickJob(this.pick);
    if (!job) return;
    const [method, path, route] =
      this.action === 'cancel'
        ? ['DELETE', `/v1/jobs/${job.jobId}`, '/v1/jobs/{id}']
        : ['POST', `/v1/jobs/${job.jobId}/${this.action}`, `/v1/jobs/{id}/${this.action}`];
    const answer = await unchangedOn4xx(world, job.jobId, () => world.call(method, path, { route, shape: 'job' }));
    const rule = TRANSITIONS[this.action];
    if (job.stable) {
      const allowed = (rule.from as string[]).includes(job.status) || rule.same.includes(job.status);
      expectThat(answer.status === (allowed ? 200 : 409), `${this.action} of a ${job.status} job`, answer);
      // Resuming a job whose schedule has nothing left may end it instead.
      if (allowed)
        expectThat(
          answer.body.status === rule.to || (this.action === 'resume' && answer.body.status === 'COMPLETED'),
          `${this.action} left it ${answer.body.status}`,
          answer,
        );
    } else {
      expectThat([200, 409].includes(answer.status), `${this.action} answered neither 200 nor 409`, answer);
    }
    if (answer.status === 200) world.learnJob(answer.body);
  }
  toString = () => `${this.action} #${this.pick}`;
}

const KEY_CHOICE = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.record({ kind: fc.constant('reuse' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('new' as const),
    key: fc.oneof(
      fc.stringMatching(/^[\x21-\x7e]{1,128}$/),
      fc.constantFrom('k'.repeat(128), 'k'.repeat(129), 'a b', 'é', ''),
    ),
  }),
);

class TriggerJob implements Command {
  constructor(
    readonly pick: number,
    readonly key: typeof KEY_CHOICE extends fc.Arbitrary<infer T> ? T : never,
  ) {}
  check = (world: World) => world.jobs.size > 0;
  async run(world: World) {
    const job = world.pickJob(this.pick);
    if (!job) return;
    const used = world.idempotency.get(job.jobId) ?? new Map<string, string>();
    const reuse = this.key.kind === 'reuse' ? [...used.keys()][this.key.pick % Math.max(used.size, 1)] : undefined;
    const key = this.key.kind === 'new' ? this.key.key : reuse;
    const answer = await unchangedOn4xx(world, job.jobId, () =>
      world.call('POST', `/v1/jobs/${job.jobId}/trigger`, {
        route: '/v1/jobs/{id}/trigger',
        shape: 'run',
        headers: key === undefined ? {} : { 'idempotency-key': key },
      }),
    );
    const validKey = key === undefined || /^[\x21-\x7e]{1,128}$/.test(key);
    if (!validKey) expectThat(answer.status === 400, 'a malformed Idempotency-Key was accepted', answer);
    if (job.stable && validKey && (job.status === 'CANCELLED' || job.status === 'PAUSED')) {
      expectThat(answer.status === 409, `trigger of a ${job.status} job`, answer);
    }
    if (job.stable && validKey && job.status === 'ACTIVE' && job.type !== 'once') {
      expectThat(answer.status === 202, 'trigger of an ACTIVE recurring job', answer);
    }
    if (answer.status !== 202) return;
    expectThat(answer.body.jobId === job.jobId && answer.body.attempt === 1, 'trigger answered another run', answer);
    const earlier = key === undefined ? undefined : used.get(key);
    if (earlier !== undefined) {
      expectThat(
        answer.body.runId === earlier && answer.headers.get('idempotent-replayed') === 'true',
        'a replayed Idempotency-Key made a new run',
        answer,
      );
    } else {
      expectThat(answer.headers.get('idempotent-replayed') === null, 'a new key answered as a replay', answer);
      if (key !== undefined) used.set(key, answer.body.runId);
      world.idempotency.set(job.jobId, used);
    }
    world.learnRun(answer.body.runId);
  }
  toString = () => `trigger #${this.pick} key ${JSON.stringify(this.key)}`;
}

// ---- runs, dead letters, secrets, monitoring -------------------------------------------------------

const RUN_ID_CHOICE = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('dead' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('any' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('edited' as const),
      pick: fc.nat(),
      scheduledFor: fc.constantFrom(
        '0',
        '1',
        '9999999999999',
        '10000000000000',
        '9999999999999999',
        '99999999999999999',
      ),
      attempt: fc.constantFrom('0', '1', '999', '1000', '9999'),
    }),
  },
);

class RetryRun implements Command {
  constructor(readonly choice: typeof RUN_ID_CHOICE extends fc.Arbitrary<infer T> ? T : never) {}
  check = (world: World) => world.runIds.length > 0;
  async run(world: World) {
    const list = this.choice.kind === 'dead' && world.deadRunIds.length > 0 ? world.deadRunIds : world.runIds;
    const original = list[this.choice.pick % list.length] as string;
    const [jobId, at, attempt] = original.split('_') as [string, string, string];
    const runId =
      this.choice.kind === 'edited' ? `${jobId}_${this.choice.scheduledFor}_${this.choice.attempt}` : original;
    const answer = await unchangedOn4xx(world, jobId, () =>
      world.call('POST', `/v1/runs/${encodeURIComponent(runId)}/retry`, {
        route: '/v1/runs/{runId}/retry',
        shape: 'run',
      }),
    );
    if (answer.status === 202) {
      expectThat(world.deadRunIds.includes(runId), 'a run that was not dead-lettered was re-driven', answer);
      expectThat(
        answer.body.attempt === Number(attempt) + 1 && Date.parse(answer.body.scheduledFor) === Number(at),
        're-drive is not the next attempt',
        answer,
      );
      world.deadRunIds.splice(world.deadRunIds.indexOf(runId), 1);
      world.learnRun(answer.body.runId);
    } else {
      expectThat([404, 409, 400].includes(answer.status), 'a retry answered neither 202, 404 nor 409', answer);
    }
  }
  toString = () => `retry ${JSON.stringify(this.choice)}`;
}

/** GET /v1/runs/{runId}: a known run is shown with its `checkpoint`; an edited id is a 404. */
class GetRun implements Command {
  constructor(readonly choice: typeof RUN_ID_CHOICE extends fc.Arbitrary<infer T> ? T : never) {}
  check = (world: World) => world.runIds.length > 0;
  async run(world: World) {
    const runId = pickRunId(world, this.choice);
    const answer = await world.call('GET', `/v1/runs/${encodeURIComponent(runId)}`, { route: '/v1/runs/{runId}' });
    if (answer.status === 200) {
      expectThat(answer.body.runId === runId && 'checkpoint' in answer.body, 'another run, or no checkpoint', answer);
    } else {
      expectThat(answer.status === 404, 'a run read answered neither 200 nor 404', answer);
    }
  }
  toString = () => `get run ${JSON.stringify(this.choice)}`;
}

/** POST /v1/runs/{runId}/cancel: 200 (cancelled, or asked to stop), 409 for an ended run, 404 for none. */
class CancelRun implements Command {
  constructor(readonly choice: typeof RUN_ID_CHOICE extends fc.Arbitrary<infer T> ? T : never) {}
  check = (world: World) => world.runIds.length > 0;
  async run(world: World) {
    const runId = pickRunId(world, this.choice);
    const answer = await world.call('POST', `/v1/runs/${encodeURIComponent(runId)}/cancel`, {
      route: '/v1/runs/{runId}/cancel',
      shape: 'run',
    });
    if (answer.status === 200) {
      expectThat(['CANCELLED', 'RUNNING'].includes(answer.body.status), 'a cancel left the run elsewhere', answer);
    } else {
      expectThat([404, 409].includes(answer.status), 'a cancel answered neither 200, 404 nor 409', answer);
    }
  }
  toString = () => `cancel run ${JSON.stringify(this.choice)}`;
}

/** A known run id, edited or not; the `dead` choice names the planted async runs here (a cancel's 200 while in flight). */
function pickRunId(world: World, choice: typeof RUN_ID_CHOICE extends fc.Arbitrary<infer T> ? T : never): string {
  const async = world.callbackTokens.map((planted) => planted.runId);
  const list = choice.kind === 'dead' && async.length > 0 ? async : world.runIds;
  const original = list[choice.pick % list.length] as string;
  const [jobId] = original.split('_') as [string];
  return choice.kind === 'edited' ? `${jobId}_${choice.scheduledFor}_${choice.attempt}` : original;
}

const CALLBACK_CHOICE = fc.record({
  route: fc.constantFrom('state', 'heartbeat', 'heartbeat', 'heartbeat', 'complete'),
  pick: fc.nat(),
  token: fc.oneof(
    { weight: 4, arbitrary: fc.constant('real' as const) },
    { weight: 1, arbitrary: fc.nat({ max: 40 }).map((at) => ({ flip: at })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((junk) => ({ junk })) },
  ),
  /** Mostly a heartbeat's fields, sometimes any JSON. */
  heartbeat: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          progress: fc.oneof(fc.integer({ min: 0, max: 100 }), numberNear(0, 100)),
          message: fc.oneof(fc.string({ maxLength: 30 }), unicodeText),
          checkpoint: fc.jsonValue({ maxDepth: 3 }),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  ),
  /** Mostly a completion's fields, sometimes any JSON. */
  completion: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          status: fc.constantFrom('succeeded', 'failed', 'succeeded', 'done'),
          output: fc.jsonValue({ maxDepth: 3 }),
          error: fc.string({ maxLength: 30 }),
          retryable: fc.oneof(fc.boolean(), fc.boolean(), fc.constant('yes')),
        },
        { requiredKeys: ['status'] },
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  ),
});

/**
 * The callback routes with a planted async run's token (or that token tampered, or junk): 200, or
 * 401 for a token that is not one, 400 naming the field, 404/409 for a run that cannot take it.
 */
class Callback implements Command {
  constructor(readonly choice: typeof CALLBACK_CHOICE extends fc.Arbitrary<infer T> ? T : never) {}
  check = (world: World) => world.callbackTokens.length > 0;
  async run(world: World) {
    const planted = world.callbackTokens[this.choice.pick % world.callbackTokens.length] as { token: string };
    const { token: choice } = this.choice;
    const token =
      choice === 'real'
        ? planted.token
        : 'flip' in choice
          ? flipped(planted.token, choice.flip)
          : encodeURIComponent(choice.junk);
    const { route } = this.choice;
    const path = `/v1/callbacks/${token}${route === 'state' ? '' : `/${route}`}`;
    const answer = await world.call(route === 'state' ? 'GET' : 'POST', path, {
      route: route === 'state' ? '/v1/callbacks/{token}' : `/v1/callbacks/{token}/${route}`,
      ...(route === 'complete' ? { shape: 'run' as const } : {}),
      ...(route === 'state' ? {} : { body: route === 'heartbeat' ? this.choice.heartbeat : this.choice.completion }),
      token: null,
    });
    if (choice !== 'real') expectThat(answer.status >= 400, 'a changed token was taken', answer);
    else expectThat(answer.status !== 401, 'a real token was refused', answer);
  }
  toString = () => `callback ${JSON.stringify(this.choice).slice(0, 300)}`;
}

/** `token` with one byte of its payload changed: its MAC no longer matches. */
function flipped(token: string, at: number): string {
  const bytes = Buffer.from(token, 'base64url');
  const index = Math.min(at, bytes.length - 33);
  bytes[index] = (bytes[index] as number) ^ 0x01;
  return bytes.toString('base64url');
}

class ListDeadLetters implements Command {
  constructor(
    readonly limit: string | undefined,
    readonly cursor: CursorChoice,
  ) {}
  check = () => true;
  async run(world: World) {
    const { cursor } = cursorFor(world, 'deadLetters', this.cursor);
    const answer = await world.call('GET', `/v1/dead-letters${queryOf({ limit: this.limit, cursor })}`, {
      route: '/v1/dead-letters',
      shape: 'runs',
    });
    acceptedCursorFitsDynamoDb(cursor, answer);
    if (answer.status !== 200) return;
    const items = answer.body.items as Array<{ runId: string; status: string }>;
    expectThat(
      items.every((run) => run.status === 'DEAD_LETTERED'),
      'a live run among the dead letters',
      answer,
    );
    for (const run of items) world.learnRun(run.runId);
    world.learnCursor('deadLetters', answer.body.cursor);
  }
  toString = () => `dead letters limit ${this.limit} cursor ${JSON.stringify(this.cursor)}`;
}

class SigningSecrets implements Command {
  constructor(readonly rotate: { overlapHours?: unknown } | undefined) {}
  check = () => true;
  async run(world: World) {
    if (this.rotate === undefined) {
      const listed = await world.call('GET', '/v1/signing-secrets', { route: '/v1/signing-secrets', shape: 'secrets' });
      expectThat(listed.status === 200, 'listing secrets failed', listed);
      expectThat(!/"secret"/.test(listed.text), 'a listing showed a secret value', listed);
      return;
    }
    const answer = await world.call('POST', '/v1/signing-secrets', {
      route: '/v1/signing-secrets',
      shape: 'secret',
      body: this.rotate,
    });
    const hours = this.rotate.overlapHours;
    const valid =
      hours === undefined || (Number.isInteger(hours) && (hours as number) >= 0 && (hours as number) <= 168);
    expectThat(answer.status === (valid ? 201 : 400), 'rotation', answer);
    if (valid) expectThat(typeof answer.body.secret === 'string', 'a rotation did not show its secret once', answer);
  }
  toString = () => `signing secrets ${JSON.stringify(this.rotate)}`;
}

/** A schedule's preview: 200 with at most `count` ascending occurrences, or a 400 naming fields; nothing written. */
class PreviewSchedule implements Command {
  constructor(readonly body: Record<string, unknown>) {}
  check = () => true;
  async run(world: World) {
    const before = await world.jobCount();
    const answer = await world.call('POST', '/v1/schedules/preview', {
      route: '/v1/schedules/preview',
      shape: 'preview',
      body: this.body,
    });
    expectThat([200, 400].includes(answer.status), 'preview', answer);
    expectThat((await world.jobCount()) === before, 'a preview wrote a job', answer);
    if (answer.status !== 200) return;
    const times = (answer.body.occurrences as string[]).map((at) => Date.parse(at));
    const count = typeof this.body.count === 'number' ? this.body.count : 10;
    expectThat(times.length <= count, 'more occurrences than asked for', answer);
    expectThat(
      times.every((at, i) => i === 0 || at > (times[i - 1] as number)),
      'occurrences out of order',
      answer,
    );
  }
  toString = () => `preview ${JSON.stringify(this.body).slice(0, 300)}`;
}

class Monitoring implements Command {
  constructor(readonly query: string) {}
  check = () => true;
  async run(world: World) {
    const stats = await world.call('GET', `/v1/monitoring/stats${this.query}`, {
      route: '/v1/monitoring/stats',
      shape: 'stats',
    });
    if (stats.status === 200)
      expectThat(stats.body.scope === world.real.chronos.tenantId, 'a tenant saw stats of another scope', stats);
    const series = await world.call('GET', `/v1/monitoring/timeseries${this.query}`, {
      route: '/v1/monitoring/timeseries',
      shape: 'timeseries',
    });
    if (series.status === 200) {
      expectThat(series.body.scope === world.real.chronos.tenantId, 'a tenant saw a series of another scope', series);
      expectThat(
        series.body.points.length === (series.body.window === '1h' ? 60 : 96),
        'a series with a step missing',
        series,
      );
    } else expectThat(series.status === 400, 'timeseries', series);
    const system = await world.call('GET', '/v1/monitoring/system', { route: '/v1/monitoring/system' });
    expectThat(system.status === 403, 'a tenant reached the system view', system);
    const health = await world.call('GET', `/v1/health${this.query}`, { route: '/v1/health', shape: 'health' });
    expectThat([200, 400, 401].includes(health.status), 'health', health);
    // Public and the same whatever the query: the OpenAPI document.
    const document = await world.call('GET', `/v1/openapi.json${this.query}`, { route: '/v1/openapi.json' });
    expectThat(document.status === 200 && document.body.openapi === '3.1.0', 'the OpenAPI document', document);
  }
  toString = () => `monitoring ${this.query}`;
}

/** A flow-control key: a key some created job named (200, its own name back), or one none did (404). */
class FlowControlKey implements Command {
  constructor(readonly key: string) {}
  check = () => true;
  async run(world: World) {
    // A lone surrogate has no UTF-8 form to encode: sent as it is (the gateway must still answer a 4xx).
    const path = this.key.isWellFormed() ? encodeURIComponent(this.key) : this.key;
    const answer = await world.call('GET', `/v1/flow-control/${path}`, {
      route: '/v1/flow-control/{key}',
    });
    if (answer.status === 200) {
      expectThat(answer.body.key === this.key, 'a flow-control key answered with another key', answer);
      expectThat(answer.body.inFlight >= 0 && answer.body.waiting >= 0, 'negative flow-control counts', answer);
    } else expectThat([400, 404].includes(answer.status), 'flow-control key', answer);
  }
  toString = () => `flow-control key ${JSON.stringify(this.key)}`;
}

/** Another tenant, holding this tenant's real ids and cursors: every job route is a 404, every cursor a 400. */
class OtherTenant implements Command {
  constructor(
    readonly pick: number,
    readonly route: number,
    readonly body: Record<string, unknown>,
  ) {}
  check = (world: World) => world.jobs.size > 0;
  async run(world: World) {
    const job = world.pickJob(this.pick);
    if (!job) return;
    const id = job.jobId;
    const runId = world.runIds[this.pick % Math.max(world.runIds.length, 1)];
    const routes: Array<[string, string, string, Record<string, string>?]> = [
      ['GET', `/v1/jobs/${id}`, '/v1/jobs/{id}'],
      ['GET', `/v1/jobs/${id}/runs`, '/v1/jobs/{id}/runs'],
      ['PATCH', `/v1/jobs/${id}`, '/v1/jobs/{id}', { 'if-match': String(job.version) }],
      ['DELETE', `/v1/jobs/${id}`, '/v1/jobs/{id}'],
      ['POST', `/v1/jobs/${id}/pause`, '/v1/jobs/{id}/pause'],
      ['POST', `/v1/jobs/${id}/resume`, '/v1/jobs/{id}/resume'],
      ['POST', `/v1/jobs/${id}/trigger`, '/v1/jobs/{id}/trigger'],
      ...(runId === undefined
        ? []
        : ([
            ['POST', `/v1/runs/${runId}/retry`, '/v1/runs/{runId}/retry'],
            ['GET', `/v1/runs/${runId}`, '/v1/runs/{runId}'],
            ['POST', `/v1/runs/${runId}/cancel`, '/v1/runs/{runId}/cancel'],
          ] as Array<[string, string, string]>)),
    ];
    const [method, path, route, headers] = routes[this.route % routes.length] as [
      string,
      string,
      string,
      Record<string, string>?,
    ];
    const answer = await unchangedOn4xx(world, id, () =>
      world.call(method, path, {
        route: `other tenant ${route}`,
        token: world.real.otherToken,
        headers: headers ?? {},
        body: method === 'PATCH' ? this.body : undefined,
      }),
    );
    // A PATCH body can fail validation before the lookup (400); nothing else may tell the job exists.
    expectThat(
      answer.status === 404 || (method === 'PATCH' && answer.status === 400),
      "another tenant's id is not a 404",
      answer,
    );
    const listing = (Object.keys(world.cursors) as Listing[]).find((l) => world.cursors[l].length > 0);
    if (listing === undefined) return;
    const cursor = world.cursors[listing][this.pick % world.cursors[listing].length] as string;
    const path2 = listing === 'jobs' ? '/v1/jobs' : '/v1/dead-letters';
    const listed = await world.call('GET', `${path2}?cursor=${cursor}`, {
      route: `other tenant ${path2}`,
      token: world.real.otherToken,
    });
    expectThat(listed.status === 400, "another tenant's cursor was accepted", listed);
  }
  toString = () => `other tenant #${this.pick} route ${this.route}`;
}

/** Runs the scanner now, so that jobs due soon materialize runs and the executor calls them. */
class Scan implements Command {
  check = () => true;
  async run(world: World) {
    await world.real.chronos.invokeScanner();
  }
  toString = () => 'scan';
}

// ---- the command set --------------------------------------------------------------------------

const JOB_STATUS = fc.constantFrom('ACTIVE', 'PAUSED', 'COMPLETED', 'FAILED', 'CANCELLED', 'active', 'NOPE');
const RUN_STATUS = fc.constantFrom('QUEUED', 'SUCCEEDED', 'DEAD_LETTERED', 'SKIPPED', 'CANCELLED', 'done');
/** An instant the API accepts, anywhere in 1970 … 2199, or at either end. */
const validInstant = fc
  .oneof(
    fc.integer({ min: 0, max: Date.UTC(2199, 11, 31, 23, 59, 59, 999) }),
    fc.constantFrom(0, Date.UTC(2199, 11, 31, 23, 59, 59, 999)),
    fc.integer({ min: -86_400_000, max: 86_400_000 }).map((d) => Date.now() + d),
  )
  .map((ms) => new Date(ms).toISOString());

export function commandsFor(baseUrl: string) {
  const creates = createBody(baseUrl);
  const patches = patchBody(baseUrl);
  // Listed twice: the jobs listing's cursor is the one a client can fill with any string.
  const listJobs = fc
    .tuple(
      fc.record(
        {
          status: fc.oneof({ weight: 4, arbitrary: JOB_STATUS.filter((s) => s === s.toUpperCase()) }, JOB_STATUS),
          type: fc.constantFrom('once', 'interval', 'cron', 'once', 'interval', 'cron', 'ONCE'),
          name: fc.oneof(fc.string({ maxLength: 3 }), unicodeText),
          limit: limit.map((l) => l ?? '3'),
        },
        { requiredKeys: ['limit'] },
      ),
      cursorChoice,
    )
    .map(([params, cursor]) => new ListJobs(params, cursor));
  return [
    creates.map((body) => new CreateJob(body)),
    creates.map((body) => new CreateJob(body)),
    fc.nat().map((pick) => new GetJob(pick)),
    listJobs,
    listJobs,
    fc
      .tuple(
        fc.nat(),
        fc
          .record(
            {
              status: RUN_STATUS,
              // Mostly an ordered window inside the range, sometimes anything at all.
              window: fc.oneof(
                {
                  weight: 3,
                  arbitrary: fc.tuple(validInstant, validInstant).map(([a, b]) => (a <= b ? [a, b] : [b, a])),
                },
                { weight: 1, arbitrary: fc.tuple(instantText, instantText) },
              ),
              only: fc.constantFrom('from', 'to', 'both'),
              limit: limit.map((l) => l ?? '2'),
            },
            { requiredKeys: ['limit', 'only'] },
          )
          .map(({ window, only, ...rest }) => ({
            ...rest,
            ...(window === undefined || only === 'to' ? {} : { from: window[0] }),
            ...(window === undefined || only === 'from' ? {} : { to: window[1] }),
          })),
        cursorChoice,
      )
      .map(([pick, params, cursor]) => new ListRuns(pick, params, cursor)),
    fc
      .tuple(fc.nat(), fc.constantFrom(...IF_MATCH, 'current', 'current'), patches)
      .map(([pick, ifMatch, body]) => new PatchJob(pick, ifMatch, body)),
    fc
      .tuple(fc.nat(), fc.constantFrom('pause', 'resume', 'cancel', 'pause', 'resume'))
      .map(([pick, action]) => new Transition(pick, action)),
    // Twice: the workflow commands share the draws, and a resume needs a pause before it to be a 200.
    fc.tuple(fc.nat(), fc.constantFrom('pause', 'resume')).map(([pick, action]) => new Transition(pick, action)),
    fc.tuple(fc.nat(), KEY_CHOICE).map(([pick, key]) => new TriggerJob(pick, key)),
    RUN_ID_CHOICE.map((choice) => new RetryRun(choice)),
    RUN_ID_CHOICE.map((choice) => new GetRun(choice)),
    RUN_ID_CHOICE.map((choice) => new CancelRun(choice)),
    CALLBACK_CHOICE.map((choice) => new Callback(choice)),
    CALLBACK_CHOICE.map((choice) => new Callback(choice)),
    fc.tuple(limit, cursorChoice).map(([l, cursor]) => new ListDeadLetters(l, cursor)),
    fc
      .option(
        fc.record({ overlapHours: fc.oneof(numberNear(0, 168), fc.constantFrom('24', null)) }, { requiredKeys: [] }),
        { nil: undefined },
      )
      .map((rotate) => new SigningSecrets(rotate)),
    fc
      .tuple(creates, fc.option(numberNear(1, 100), { nil: undefined }))
      .map(
        ([body, count]) => new PreviewSchedule({ schedule: body.schedule, ...(count === undefined ? {} : { count }) }),
      ),
    fc
      .constantFrom('', '?window=5m', '?window=24h', '?window=7d', '?tenantId=other', '?deep=true', '?window=%E2%82%AC')
      .map((q) => new Monitoring(q)),
    fc.oneof(fc.constantFrom(...FUZZ_FLOW_KEYS), unicodeText).map((key) => new FlowControlKey(key)),
    fc.tuple(fc.nat(), fc.nat(), patches).map(([pick, route, body]) => new OtherTenant(pick, route, body)),
    fc.constant(new Scan()),
    ...workflowCommands(baseUrl),
    ...workflowRunCommands(),
  ];
}
