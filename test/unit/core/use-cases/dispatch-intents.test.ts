/**
 * The scanner's runs are covered by one dispatch intent per page instead of a sweep-index entry
 * each: recorded before the puts, removed once the page is sent, and swept (its QUEUED runs sent)
 * when it is still there after the grace.
 */
import { describe, expect, it } from 'vitest';
import type { RunDispatcher } from '#core/ports';
import { intentOf, jobsOf } from '#core/runs/dispatch-intent';
import { DEFAULT_SWEEP_GRACE_MS } from '#core/runs/send-runs';
import { pauseJob } from '#core/use-cases/pause-resume-job';
import { scanDueJobs } from '#core/use-cases/scan-due-jobs';
import { sweepRuns } from '#core/use-cases/sweep-runs';
import { InMemoryDispatchIntents } from '../../../support/fakes/in-memory-dispatch-intents.ts';
import { every, NOW, setup, TENANT } from './manage-fixtures.ts';

const GRACE = DEFAULT_SWEEP_GRACE_MS;
/** A scanner that dies between its puts and its send: nothing reaches the queue. */
const diesBeforeSending: RunDispatcher = { dispatch: async () => undefined };
const sqsDown: RunDispatcher = { dispatch: async () => Promise.reject(new Error('SQS is down')), unsent: () => {} };

function withIntents() {
  const base = setup();
  const intents = new InMemoryDispatchIntents();
  const scanner = { ...base.deps, intents };
  /** The scanner process dying right after its puts: it neither sends nor clears its intent. */
  const deadScanner = {
    ...scanner,
    dispatcher: diesBeforeSending,
    intents: { record: intents.record.bind(intents), clear: async () => {}, findDue: intents.findDue.bind(intents) },
  };
  const sweep = (now: number) =>
    sweepRuns({ runs: base.runs, dispatcher: base.dispatcher, config: base.deps.config, intents }, now);
  return { ...base, intents, scanner, deadScanner, sweep };
}

/** One-time jobs due an hour from NOW, created far enough ahead that only the scanner materializes them. */
async function oneTimeJobs(create: ReturnType<typeof setup>['create'], count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push((await create({ schedule: { type: 'once', at: new Date(NOW + 3_600_000 + i).toISOString() } })).jobId);
  }
  return ids;
}

const DUE_SOON = NOW + 3_600_000 - 30_000;

describe('dispatch intents', () => {
  it('puts a scan’s runs without sweep entries, under one intent per page, removed once they are sent', async () => {
    const { scanner, create, runs, intents, dispatcher } = withIntents();
    await oneTimeJobs(create, 5);
    const recorded: number[] = [];
    const record = intents.record.bind(intents);
    intents.record = async (intent) => {
      // Recorded before any run is put: a scanner dying after a put always leaves its intent.
      recorded.push(runs.all().length);
      await record(intent);
    };

    const result = await scanDueJobs(scanner, DUE_SOON);

    expect(result).toMatchObject({ runsCreated: 5, messagesSent: 5 });
    expect(runs.all().map((run) => run.sweepAt)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.every((putBefore) => putBefore === 0 || putBefore < 5)).toBe(true);
    expect(intents.items.size).toBe(0);
    expect(dispatcher.sent).toHaveLength(5);
  });

  it('without intents (creation, PATCH, resume), every run keeps its own sweep entry', async () => {
    const { deps, create, runs } = withIntents();
    await oneTimeJobs(create, 2);
    await scanDueJobs(deps, DUE_SOON);
    expect(runs.all().every((run) => run.sweepAt !== undefined)).toBe(true);
  });

  it('sends the runs of a page whose scanner died before sending, once the grace has passed', async () => {
    const { deadScanner, create, runs, intents, dispatcher, sweep } = withIntents();
    await oneTimeJobs(create, 3);

    await scanDueJobs(deadScanner, DUE_SOON);
    expect(runs.all()).toHaveLength(3);
    expect(intents.items.size).toBeGreaterThan(0);

    expect(await sweep(DUE_SOON + GRACE - 1)).toMatchObject({ resent: 0 });
    expect(dispatcher.sent).toEqual([]);
    const swept = await sweep(DUE_SOON + GRACE);
    expect(swept.resent).toBe(3);
    expect(new Set(dispatcher.sent.map((s) => s.message.runId))).toEqual(new Set(runs.all().map((run) => run.runId)));
    // Counted on each run, as a sweep of the sweep index is.
    expect(runs.all().map((run) => run.sweeps)).toEqual([1, 1, 1]);
    expect(intents.items.size).toBe(0);
    // Cleared: the next pass sends nothing again.
    expect(await sweep(DUE_SOON + 2 * GRACE)).toMatchObject({ resent: 0 });
  });

  it('keeps the intent when the send fails (the jobs still advance), and the sweep sends the runs', async () => {
    const { scanner, create, jobs, intents, dispatcher, sweep } = withIntents();
    const [jobId] = await oneTimeJobs(create, 1);

    const result = await scanDueJobs({ ...scanner, dispatcher: sqsDown }, DUE_SOON);

    expect(result).toMatchObject({ runsCreated: 1, messagesSent: 0, jobsAdvanced: 1 });
    expect((await jobs.get(TENANT, jobId as string))?.nextFireAt).toBeUndefined();
    expect(intents.items.size).toBe(1);
    expect((await sweep(DUE_SOON + GRACE)).resent).toBe(1);
    expect(dispatcher.sent.map((s) => s.message.jobId)).toEqual([jobId]);
  });

  it('sends the runs of a dead catch-up pass that the next pass, planning another window, never meets again', async () => {
    const { scanner, deadScanner, create, runs, dispatcher, sweep } = withIntents();
    // Every 2 s since two minutes before NOW, and the scanners away since: a catch-up is due.
    const job = await create(every(2, NOW - 120_000, { misfire: 'fire_once' }), NOW - 121_000);
    await scanDueJobs(deadScanner, NOW);
    const orphans = runs.all().map((run) => run.scheduledFor);
    expect(orphans.length).toBeGreaterThan(0);

    // The next pass, a minute later, plans from its own now: the dead pass's catch-up is missed for it.
    await scanDueJobs(scanner, NOW + 61_000);
    const resentByScan = new Set(dispatcher.sent.map((s) => s.message.scheduledFor));
    const neverMetAgain = orphans.filter((at) => !resentByScan.has(at));
    expect(neverMetAgain.length).toBeGreaterThan(0);

    await sweep(NOW + GRACE);
    const sent = new Set(dispatcher.sent.map((s) => s.message.scheduledFor));
    for (const at of orphans) expect(sent.has(at), `run at ${at} of ${job.jobId} sent`).toBe(true);
  });

  it('sends a dead pass’s runs even when the job was paused meanwhile (the executor then ends them visibly)', async () => {
    const { scanner, deadScanner, create, runs, dispatcher, sweep } = withIntents();
    const job = await create(every(5, NOW + 10_000), NOW);
    await scanDueJobs(deadScanner, NOW + 1_000);
    // Due before the pause, so the pause's un-materializing (runs after now) leaves them.
    const due = runs.all().filter((run) => run.scheduledFor <= NOW + 20_000);
    expect(due.length).toBeGreaterThan(0);

    await pauseJob(scanner, TENANT, job.jobId, NOW + 20_000);
    await sweep(NOW + 1_000 + GRACE);

    const sent = new Set(dispatcher.sent.map((s) => s.message.runId));
    for (const run of due) expect(sent.has(run.runId)).toBe(true);
  });

  it('does not send a run already claimed or finished, only those still QUEUED', async () => {
    const { deadScanner, create, runs, dispatcher, sweep } = withIntents();
    await oneTimeJobs(create, 2);
    await scanDueJobs(deadScanner, DUE_SOON);
    const [claimed, queued] = runs.all();
    if (!claimed || !queued) throw new Error('two runs expected');
    // Claimed between the sweep's listing and its count: not sent again.
    const listByJob = runs.listByJob.bind(runs);
    runs.listByJob = async (tenantId, jobId, query) => {
      const page = await listByJob(tenantId, jobId, query);
      if (jobId === claimed.jobId)
        await runs.claim(claimed, { owner: 'e', expiresAt: DUE_SOON + 600_000, now: DUE_SOON, takeOverExpired: true });
      return page;
    };

    await sweep(DUE_SOON + GRACE);

    expect(dispatcher.sent.map((s) => s.message.runId)).toEqual([queued.runId]);
  });

  it('sends only first attempts: a retry in the range keeps its own sweep entry and is never sent early', async () => {
    const { deadScanner, create, runs, dispatcher, sweep } = withIntents();
    await oneTimeJobs(create, 1);
    await scanDueJobs(deadScanner, DUE_SOON);
    const [first] = runs.all();
    if (!first) throw new Error('run expected');
    // Its first attempt ran (a duplicate message, say) and failed; the retry is parked for an hour.
    const parked = { ...first, attempt: 2, runId: `${first.runId}-2`, availableAt: DUE_SOON + 3_600_000 };
    await runs.createIfAbsent(parked, { sweepAt: DUE_SOON + 3_600_000 });

    await sweep(DUE_SOON + GRACE);

    expect(dispatcher.sent.map((s) => s.message.attempt)).toEqual([1]);
  });

  it('keeps the intent when a put failed, as a put whose answer was lost may have landed unsent', async () => {
    const { scanner, create, runs, intents, dispatcher, sweep } = withIntents();
    const [, lost] = await oneTimeJobs(create, 2);
    const put = runs.createIfAbsent.bind(runs);
    runs.createIfAbsent = async (run, options) => {
      const result = await put(run, options);
      // Written, but the answer never came back (a timeout after the write).
      if (run.jobId === lost) throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
      return result;
    };

    const result = await scanDueJobs(scanner, DUE_SOON);

    expect(result.failed.map((f) => f.jobId)).toEqual([lost]);
    expect(dispatcher.sent.map((s) => s.message.jobId)).not.toContain(lost);
    expect(intents.items.size).toBe(1);
    await sweep(DUE_SOON + GRACE);
    const landed = runs.all().find((run) => run.jobId === lost);
    expect(dispatcher.sent.map((s) => s.message.runId)).toContain(landed?.runId);
  });

  it('puts nothing when the intent cannot be written: the jobs stay due and are reported', async () => {
    const { scanner, create, runs, jobs, intents } = withIntents();
    const ids = await oneTimeJobs(create, 2);
    intents.failRecord = new Error('ProvisionedThroughputExceededException');

    const result = await scanDueJobs(scanner, DUE_SOON);

    expect(runs.all()).toEqual([]);
    expect(result.failed.map((f) => f.jobId).sort()).toEqual([...ids].sort());
    for (const id of ids) expect((await jobs.get(TENANT, id))?.nextFireAt).toBe(NOW + 3_600_000 + ids.indexOf(id));

    intents.failRecord = undefined;
    expect(await scanDueJobs(scanner, DUE_SOON + 1_000)).toMatchObject({ runsCreated: 2, messagesSent: 2 });
  });

  it('keeps an intent whose runs cannot be read, and still clears the others', async () => {
    const { deadScanner, create, runs, intents, sweep } = withIntents();
    await oneTimeJobs(create, 1);
    await scanDueJobs(deadScanner, DUE_SOON);
    const [good] = intents.items.values();
    if (!good) throw new Error('intent expected');
    // A second intent naming a job whose runs cannot be read (a throttled query).
    await intents.record({ ...good, id: 'broken', jobs: [`${TENANT}#unreadable`] });
    const listByJob = runs.listByJob.bind(runs);
    runs.listByJob = async (tenantId, jobId, query) => {
      if (jobId === 'unreadable') throw new Error('ThrottlingException');
      return listByJob(tenantId, jobId, query);
    };

    const result = await sweep(DUE_SOON + GRACE);

    expect(result.resent).toBe(1);
    expect([...intents.items.values()].map((intent) => intent.id)).toEqual(['broken']);
  });
});

describe('intentOf', () => {
  const config = { shardCount: 4, sweepGraceMs: 60_000 };

  it('names each job once and spans the earliest to the latest run', () => {
    const runs = [
      { tenantId: 't1', jobId: 'a', scheduledFor: 30 },
      { tenantId: 't1', jobId: 'a', scheduledFor: 10 },
      { tenantId: 't2', jobId: 'b', scheduledFor: 20 },
    ];
    const intent = intentOf(runs, 1_000, config, 'id-1');
    expect(intent).toMatchObject({ id: 'id-1', sweepAt: 61_000, from: 10, until: 30, jobs: ['t1#a', 't2#b'] });
    expect(jobsOf(intent)).toEqual([
      { tenantId: 't1', jobId: 'a' },
      { tenantId: 't2', jobId: 'b' },
    ]);
  });

  it('takes a page of 100,000 runs (more than a call takes arguments)', () => {
    const runs = Array.from({ length: 100_000 }, (_, i) => ({ tenantId: 't', jobId: `j${i % 100}`, scheduledFor: i }));
    expect(intentOf(runs, 0, config, 'big')).toMatchObject({ from: 0, until: 99_999 });
  });

  it('refuses an empty page', () => {
    expect(() => intentOf([], 0, config, 'none')).toThrow(RangeError);
  });
});
