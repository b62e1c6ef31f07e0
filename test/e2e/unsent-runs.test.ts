/**
 * A run written but never sent is found and sent, whatever wrote it: every path that puts a run
 * (trigger, re-drive, resume catch-up, retry, a scanner's catch-up pass under its dispatch intent)
 * is made to die between its put and its send (a dispatcher that drops everything), and the run
 * must still be called,
 * by the scanner's sweep, within its release plus the sweep grace plus a scan or two. And with the
 * SQS emulator stopped, creating a job still answers 201, and its run is called once SQS is back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDispatchIntents } from '#adapters/dynamodb/dispatch-intent-store';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { dueShardOf } from '#core/due-shard';
import { planFiring } from '#core/fire-plan';
import type { RunDispatcher } from '#core/ports';
import { runIdOf } from '#core/run-id';
import type { DispatchIntent } from '#core/runs/dispatch-intent';
import { completeRun } from '#core/use-cases/complete-run';
import { redriveRun } from '#core/use-cases/dead-letters';
import { materializeOccurrences } from '#core/use-cases/materialize-occurrences';
import { newRun } from '#core/use-cases/new-run';
import { resumeJob } from '#core/use-cases/pause-resume-job';
import { triggerJob } from '#core/use-cases/trigger-job';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type RunningEmulator, startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { eventually, type HttpTarget, startHttpTarget } from '../support/http-target.ts';

const SHARDS = 4;
const GRACE_SECONDS = 2;
const HORIZON_MS = 10_000;
/**
 * Release + grace, then a scan (every 500 ms) and an executor poll, with room for a loaded machine
 * (what is judged here is that the runs are found at all, not how fast: a catch-up's dozens of runs
 * took more than 8 s of room on a two-core machine running another file beside this one).
 */
const FOUND_WITHIN_MS = GRACE_SECONDS * 1000 + 20_000;

let dynamodb: RunningEmulator;
let fauxqs: FauxqsServer;
let fauxqsDir: string;
let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocumentClient;
let jobs: DynamoJobRepository;
let runs: DynamoRunRepository;

/** A writer that dies between its put and its send: nothing ever reaches the queue. */
const diesBeforeSending: RunDispatcher = { dispatch: async () => undefined };

beforeAll(async () => {
  fauxqsDir = mkdtempSync(join(tmpdir(), 'chronos-unsent-fauxqs-'));
  // SQLite-backed, so that stopping it and starting it again on the same port keeps queues and messages.
  [dynamodb, fauxqs] = await Promise.all([
    startDynamoDbLocal(),
    startFauxqs({ port: 0, logger: false, dataDir: fauxqsDir }),
  ]);
  target = await startHttpTarget();
  chronos = await startLocalChronos({
    endpoints: { dynamodb: dynamodb.endpoint, sqs: fauxqs.address },
    scannerIntervalMs: 500,
    scanHorizonSeconds: HORIZON_MS / 1000,
    dueShardCount: SHARDS,
    sweepGraceSeconds: GRACE_SECONDS,
    log: () => undefined,
  });
  documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: dynamodb.endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  jobs = new DynamoJobRepository(documents, chronos.tables.jobs);
  runs = new DynamoRunRepository(documents, chronos.tables.runs, SHARDS, GRACE_SECONDS * 1000);
}, 60_000);
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
  await target?.close();
  await Promise.all([dynamodb?.stop(), fauxqs?.stop()]);
  if (fauxqsDir) rmSync(fauxqsDir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${chronos.token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** A recurring job whose schedule does not fire during the test: only the run under test calls `path`. */
async function quietJob(path: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { status, body } = await api('POST', '/v1/jobs', {
    target: { url: target.url(path) },
    schedule: { type: 'interval', everySeconds: 3_600, startAt: new Date(Date.now() + 3_600_000).toISOString() },
    ...extra,
  });
  expect(status).toBe(201);
  return body.jobId;
}

const deps = (dispatcher: RunDispatcher) => ({
  jobs,
  runs,
  dispatcher,
  config: { retentionDays: 1, horizonMs: HORIZON_MS, shardCount: SHARDS },
});

/** How many times the sweep sent the run (its `sweeps` counter), straight from the table. */
async function sweepsOf(tenantId: string, jobId: string, scheduledFor: number, attempt: number) {
  const run = await runs.get({ tenantId, jobId, scheduledFor, attempt });
  return run?.sweeps ?? 0;
}

describe('a run put but never sent is found by the sweep and called', () => {
  it('by a trigger', async () => {
    const jobId = await quietJob('/trigger');

    const { run } = await triggerJob(deps(diesBeforeSending), chronos.tenantId, jobId, Date.now());

    const [call] = await target.waitForCalls('/trigger', 1, FOUND_WITHIN_MS);
    expect(call?.headers['chronos-run-id']).toBe(run.runId);
    expect(await sweepsOf(chronos.tenantId, jobId, run.scheduledFor, 1)).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('by a re-drive of a dead letter', async () => {
    const jobId = await quietJob('/redrive');
    const dead = newRun({ tenantId: chronos.tenantId, jobId }, Date.now() - 60_000, 1, Date.now() - 60_000, 1);
    await runs.createIfAbsent(dead);
    await runs.deadLetter(dead, 'poison', Date.now());

    const next = await redriveRun(deps(diesBeforeSending), chronos.tenantId, dead.runId, Date.now());

    const [call] = await target.waitForCalls('/redrive', 1, FOUND_WITHIN_MS);
    expect(call?.headers['chronos-run-id']).toBe(next.runId);
    expect(await sweepsOf(chronos.tenantId, jobId, next.scheduledFor, 2)).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('by a retry the completion handler created', async () => {
    const jobId = await quietJob('/retry');
    const failedAt = Date.now();
    const scheduledFor = failedAt - 5_000;
    const failed = {
      tenantId: chronos.tenantId,
      jobId,
      scheduledFor,
      attempt: 1,
      runId: runIdOf({ jobId, scheduledFor, attempt: 1 }),
      status: 'FAILED' as const,
      nextAttemptAt: failedAt + 500,
      completedAt: failedAt,
    };
    const notices = { send: async () => Promise.reject(new Error('no onFailure notice expected')) };

    expect(await completeRun({ ...deps(diesBeforeSending), notices }, failed, failedAt)).toBe('retry-scheduled');

    const [call] = await target.waitForCalls('/retry', 1, FOUND_WITHIN_MS);
    expect(call?.headers['chronos-run-id']).toBe(runIdOf({ jobId, scheduledFor, attempt: 2 }));
    expect(call?.at).toBeGreaterThanOrEqual(failedAt + 500);
    expect(await sweepsOf(chronos.tenantId, jobId, scheduledFor, 2)).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('by a resume that catches up the occurrences missed during a pause', async () => {
    // Released by the queue after the pause below: no executor has claimed either run when it pauses.
    const startAt = Date.now() + 3_000;
    const { status, body: job } = await api('POST', '/v1/jobs', {
      target: { url: target.url('/resume') },
      schedule: { type: 'interval', everySeconds: 1, startAt: new Date(startAt).toISOString(), maxRuns: 2 },
      misfire: 'fire_all',
    });
    expect(status).toBe(201);
    expect((await api('POST', `/v1/jobs/${job.jobId}/pause`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, startAt + 2_000 - Date.now()));

    await resumeJob(deps(diesBeforeSending), chronos.tenantId, job.jobId, Date.now());

    const calls = await target.waitForCalls('/resume', 2, FOUND_WITHIN_MS);
    const occurrences = calls.map((call) => Number(String(call.headers['idempotency-key']).split(':')[1])).sort();
    expect(new Set(occurrences).size).toBe(2);
    for (const at of occurrences) {
      expect(at).toBeGreaterThanOrEqual(startAt);
      expect(await sweepsOf(chronos.tenantId, job.jobId, at, 1)).toBeGreaterThanOrEqual(1);
    }
    await eventually(
      async () => (await api('GET', `/v1/jobs/${job.jobId}`)).body,
      (current) => current.status === 'COMPLETED',
      FOUND_WITHIN_MS,
    );
  }, 30_000);

  it('by a catch-up pass that died half-way, though the next pass plans another window', async () => {
    const jobId = await quietJob('/catch-up', { misfire: 'fire_once' });
    const stored = await jobs.get(chronos.tenantId, jobId);
    if (!stored) throw new Error('job not stored');
    // The scanners were away for two minutes: the job, every 2 s, is still at its old slot.
    const plannedAt = Date.now() - 5_000;
    const missedFrom = plannedAt - 120_000;
    const schedule = { type: 'interval' as const, everySeconds: 2, startAt: missedFrom };
    const late = { ...stored, schedule, nextFireAt: missedFrom };
    // A scanner pass planned 5 s ago recorded its page's dispatch intent, put the runs of its
    // catch-up (the latest missed slot and the slots within the misfire grace) without sweep
    // entries, and died before sending them, clearing its intent or advancing the job.
    const intents = new DynamoDispatchIntents(documents, chronos.tables.metrics);
    const written: DispatchIntent[] = [];
    const deadScanner = {
      ...deps(diesBeforeSending),
      config: { ...deps(diesBeforeSending).config, sweepGraceMs: GRACE_SECONDS * 1000 },
      intents: {
        record: async (intent: DispatchIntent) => {
          written.push(intent);
        },
        clear: async () => {},
        findDue: intents.findDue.bind(intents),
      },
      jobs: { ...jobs, advance: async () => false } as unknown as DynamoJobRepository,
    };
    const crashed = planFiring(late, plannedAt, plannedAt + HORIZON_MS);
    await materializeOccurrences(deadScanner, [late], plannedAt);
    // Its intent, already past its sweep time (planned 5 s ago, 2 s of grace), is stored once the
    // pass is over: stored first, a live sweep could take it while the puts go on and leave the
    // later runs to nobody. Deployed, no sweep sees an intent before its pass is over: the grace
    // (60 s) outlasts the scanner's timeout (test/infra/sweep-grace.test.ts).
    for (const intent of written) await intents.record(intent);
    const due = crashed.occurrences.filter((at) => at <= Date.now());
    // Put (the live sweep may already be sending them: the intent's grace counts from 5 s ago).
    for (const at of due)
      expect(await runs.get({ tenantId: chronos.tenantId, jobId, scheduledFor: at, attempt: 1 })).toBeDefined();
    await documents.send(
      new UpdateCommand({
        TableName: chronos.tables.jobs,
        Key: { tenantId: chronos.tenantId, jobId },
        UpdateExpression: 'SET #schedule = :schedule, #next = :next',
        ExpressionAttributeNames: { '#schedule': 'schedule', '#next': 'nextFireAt' },
        ExpressionAttributeValues: { ':schedule': schedule, ':next': missedFrom },
      }),
    );
    // The live scanners plan from now: the latest missed slot and the grace window have moved on.
    const nextPlan = planFiring(late, Date.now(), Date.now());
    const neverPlannedAgain = due.filter((at) => !nextPlan.occurrences.includes(at));
    expect(neverPlannedAgain.length).toBeGreaterThan(0);

    const keys = new Set(due.map((at) => `${jobId}:${at}`));
    await eventually(
      async () => target.callsTo('/catch-up').filter((call) => keys.has(String(call.headers['idempotency-key']))),
      (calls) => new Set(calls.map((call) => call.headers['idempotency-key'])).size === keys.size,
      FOUND_WITHIN_MS,
    );
    // Found by its intent (no sweep entry of its own), the sweep counted on the run; the intent gone once swept.
    for (const at of neverPlannedAgain)
      expect(await sweepsOf(chronos.tenantId, jobId, at, 1)).toBeGreaterThanOrEqual(1);
    await eventually(
      async () => intents.findDue(dueShardOf(jobId, SHARDS), Number.MAX_SAFE_INTEGER, 100),
      (left) => left.every((intent) => !intent.jobs.includes(`${chronos.tenantId}#${jobId}`)),
      FOUND_WITHIN_MS,
    );
    expect((await api('DELETE', `/v1/jobs/${jobId}`)).status).toBe(200);
  }, 60_000);
});

describe('a failed send is not the writer’s error', () => {
  it('creates a job while SQS is down (201), and calls its run once SQS is back', async () => {
    const port = fauxqs.port;
    await fauxqs.stop();
    try {
      const created = await api('POST', '/v1/jobs', {
        target: { url: target.url('/sqs-down') },
        schedule: { type: 'once' },
      });
      expect(created.status).toBe(201);
      expect(target.callsTo('/sqs-down')).toEqual([]);
    } finally {
      fauxqs = await startFauxqs({ port, logger: false, dataDir: fauxqsDir });
    }

    const [call] = await target.waitForCalls('/sqs-down', 1, FOUND_WITHIN_MS);
    expect(call?.at).toBeDefined();
  }, 30_000);
});
