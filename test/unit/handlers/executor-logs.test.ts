/**
 * The executor's logging contract (issue #7): every line about a run carries tenantId, jobId, runId
 * and attempt, however many records of a batch run in parallel, and never a header value or a body.
 * The handler runs here on in-memory adapters (wiring mocked); its logger is spied on.
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Job } from '#core/model';
import { fixedSigningKeys, newSigningSecret } from '#core/signing';
import { newRun } from '#core/use-cases/new-run';
import { RecordingDispatcher, ScriptedInvoker } from '../../support/fakes/fakes.ts';
import { InMemoryAsyncRunStore } from '../../support/fakes/in-memory-async-runs.ts';
import { InMemoryJobRepository } from '../../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../../support/fakes/in-memory-runs.ts';
import { InMemoryRunSlots } from '../../support/fakes/in-memory-tenants.ts';
import { jobFixture } from '../../support/job-fixture.ts';

const fakes = vi.hoisted(() => ({
  jobs: undefined as unknown as InMemoryJobRepository,
  runs: undefined as unknown as InMemoryRunRepository,
  invoker: undefined as unknown,
  hidden: [] as string[],
  refuseVisibility: false,
  /** comeBackIn calls: [messageId, seconds]. */
  comeBack: [] as Array<[string, number]>,
}));

vi.mock('#handlers/wiring', () => ({
  // No job here is async: the async deps are built, never used.
  asyncRunStore: () => new InMemoryAsyncRunStore(fakes.runs as InMemoryRunRepository),
  callbackKeys: () => ({ keys: async () => ['k'.repeat(43)] }),
  callbackBaseUrl: () => 'https://api.test',
  // No job here is a workflow: read only at a workflow's occurrence.
  workflowRunDeps: () => ({}),
  // No job here has flow control: the key store is built, never used.
  flowKeys: () => ({}),
  schedulingConfig: () => ({ shardCount: 4 }),
  executorJobRepository: () => fakes.jobs,
  runRepository: () => fakes.runs,
  httpInvoker: () => fakes.invoker,
  signingKeys: () => fixedSigningKeys([newSigningSecret()]),
  secretCipher: () => undefined,
  leaseMarginMs: () => 30_000,
  runSlots: () => new InMemoryRunSlots(),
  executorMaxCallsInFlight: () => 80,
  quotasOf: async () => ({ maxConcurrentRuns: 80 }),
  runDispatcher: () => new RecordingDispatcher(),
  leaseVisibilityOf: (records: Array<{ messageId: string }>) => {
    let open = records.length;
    let done = Promise.resolve();
    const held: Array<(reason: string) => void> = [];
    const reported = () => {
      if (--open > 0 || held.length === 0) return;
      done = Promise.resolve().then(() => {
        for (const fail of held) fakes.refuseVisibility ? fail('ReceiptHandleIsInvalid: gone') : fakes.hidden.push('x');
      });
    };
    return {
      forMessage: (record: { messageId: string }, onFailure: (reason: string) => void) => {
        let settled = false;
        return {
          comeBackIn: (seconds: number) => {
            fakes.comeBack.push([record.messageId, seconds]);
            if (!settled) reported();
            settled = true;
          },
          afterLease: () => {
            held.push(onFailure);
            settled = true;
            reported();
          },
          settle: () => {
            if (!settled) reported();
            settled = true;
          },
        };
      },
      done: () => done,
    };
  },
}));

const { execute } = await import('#handlers/executor');
const { logger } = await import('#handlers/logger');

const DUE = Date.now() - 1_000;
const SECRET = 'Bearer do-not-log-me';
const job = (jobId: string): Job =>
  jobFixture(DUE, {
    tenantId: 't1',
    jobId,
    target: { url: 'https://example.com/hook', method: 'POST', headers: { authorization: SECRET }, body: '{"card":1}' },
    retry: { maxAttempts: 1, initialDelaySeconds: 1, maxDelaySeconds: 1, multiplier: 2 },
    timeoutSeconds: 5,
  });

async function eventOf(jobIds: string[]): Promise<SQSEvent> {
  const Records = [];
  for (const jobId of jobIds) {
    await fakes.jobs.create(job(jobId));
    const run = newRun(job(jobId), DUE, 1, DUE - 60_000, 7);
    await fakes.runs.createIfAbsent(run);
    const body = { tenantId: 't1', jobId, scheduledFor: DUE, attempt: 1, runId: run.runId };
    Records.push({ messageId: `m-${jobId}`, receiptHandle: `h-${jobId}`, body: JSON.stringify(body), attributes: {} });
  }
  return { Records } as unknown as SQSEvent;
}

const context = { functionName: 'executor', awsRequestId: 'req-1', getRemainingTimeInMillis: () => 60_000 } as Context;

describe('executor log lines', () => {
  let lines: Array<{ level: string; message: unknown; extra: Record<string, unknown> }>;
  // One set for the file, as the handler builds its adapters once per process; job ids differ per test.
  beforeAll(() => {
    fakes.jobs = new InMemoryJobRepository();
    fakes.runs = new InMemoryRunRepository();
    fakes.invoker = new ScriptedInvoker({ now: () => Date.now(), sleepUntil: async () => undefined }, (request) => ({
      kind: 'response',
      // Jobs named J-fail… answer 500 (one attempt: the run ends FAILED); every other 200.
      status: String(request.headers['Chronos-Run-Id']).startsWith('J-fail') ? 500 : 200,
      bodyExcerpt: 'secret response body',
      durationMs: 1,
    }));
  });
  beforeEach(() => {
    fakes.refuseVisibility = false;
    lines = [];
    for (const level of ['debug', 'info', 'warn', 'error'] as const) {
      vi.spyOn(logger, level).mockImplementation((message: unknown, ...extra: unknown[]) => {
        lines.push({ level, message, extra: Object.assign({}, ...(extra as object[])) });
      });
    }
  });
  afterEach(() => vi.restoreAllMocks());

  function expectRunKeysOnEveryLine(jobIds: string[]) {
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line.extra).toMatchObject({ tenantId: 't1', attempt: 1 });
      expect(jobIds).toContain(line.extra.jobId);
      expect(String(line.extra.runId)).toContain(String(line.extra.jobId));
      expect(JSON.stringify(line)).not.toMatch(/do-not-log-me|secret response body|card/);
    }
  }

  it('puts the run keys on each line of records run in parallel, keys never mixed between runs', async () => {
    const response = await execute(await eventOf(['J-a', 'J-b', 'J-c']), context);

    expect(response.batchItemFailures).toEqual([]);
    expect(lines.filter((l) => l.message === 'run finished').map((l) => l.extra.jobId)).toEqual(
      expect.arrayContaining(['J-a', 'J-b', 'J-c']),
    );
    for (const line of lines) expect(String(line.extra.runId).startsWith(`${line.extra.jobId}_`)).toBe(true);
    expectRunKeysOnEveryLine(['J-a', 'J-b', 'J-c']);
  });

  it('logs a run that succeeded at DEBUG (its history and the metrics have it) and one that did not at INFO', async () => {
    await execute(await eventOf(['J-ok', 'J-fail']), context);

    const finished = lines.filter((l) => l.message === 'run finished');
    expect(finished.map((l) => [l.extra.jobId, l.level, l.extra.status, l.extra.httpStatus])).toEqual(
      expect.arrayContaining([
        ['J-ok', 'debug', 'SUCCEEDED', 200],
        ['J-fail', 'info', 'FAILED', 500],
      ]),
    );
    expect(finished).toHaveLength(2);
    expectRunKeysOnEveryLine(['J-ok', 'J-fail']);
  });

  it('names the run whose message could not be hidden until its lease ends', async () => {
    fakes.refuseVisibility = true;

    await execute(await eventOf(['J-d']), context);

    expect(lines.find((l) => l.level === 'warn')).toMatchObject({
      extra: { jobId: 'J-d', reason: 'ReceiptHandleIsInvalid: gone' },
    });
    expectRunKeysOnEveryLine(['J-d']);
  });

  it('keys the line of a run it does not call', async () => {
    const event = await eventOf(['J-e']);
    await execute(event, context);
    lines.length = 0;

    await execute(event, context);

    expect(lines).toEqual([expect.objectContaining({ message: 'run not called: already-finished' })]);
    expectRunKeysOnEveryLine(['J-e']);
  });

  it('sends a record that failed before its call back within seconds, later on each receive, and keys its line', async () => {
    // With a healthy neighbour: a batch whose every record failed is thrown whole (FullBatchFailureError).
    const event = await eventOf(['J-f', 'J-g']);
    const get = fakes.jobs.get.bind(fakes.jobs);
    fakes.jobs.get = async (tenantId, jobId) => {
      if (jobId === 'J-f') throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
      return get(tenantId, jobId);
    };
    const third = {
      ...event,
      Records: event.Records.map((r) => ({ ...r, attributes: { ApproximateReceiveCount: '3' } })),
    };

    try {
      const first = await execute(event, context);
      await execute(third as SQSEvent, context);

      expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm-J-f' }]);
      expect(fakes.comeBack).toEqual([
        ['m-J-f', 2],
        ['m-J-f', 32],
      ]);
      expect(lines.find((l) => l.level === 'warn')).toMatchObject({ extra: { jobId: 'J-f', comeBackInSeconds: 2 } });
      expectRunKeysOnEveryLine(['J-f', 'J-g']);
    } finally {
      fakes.jobs.get = get;
    }
  });
});

describe('a record that is not a dispatch message', () => {
  it('is set aside at once (logged, acknowledged), while the run beside it is called', async () => {
    const lines: Array<{ message: unknown; extra: Record<string, unknown> }> = [];
    vi.spyOn(logger, 'error').mockImplementation((message: unknown, ...extra: unknown[]) => {
      lines.push({ message, extra: Object.assign({}, ...(extra as object[])) });
    });
    const event = await eventOf(['J-h']);
    const poison = { messageId: 'm-poison', receiptHandle: 'h-poison', body: '{"jobId": 42}', attributes: {} };

    try {
      const response = await execute({ Records: [poison, ...event.Records] } as unknown as SQSEvent, context);

      expect(response.batchItemFailures).toEqual([]);
      expect(lines).toEqual([
        {
          message: 'record set aside: it can never succeed',
          extra: expect.objectContaining({ handler: 'executor', messageId: 'm-poison' }),
        },
      ]);
      expect((await fakes.runs.get({ tenantId: 't1', jobId: 'J-h', scheduledFor: DUE, attempt: 1 }))?.status).toBe(
        'SUCCEEDED',
      );
    } finally {
      vi.restoreAllMocks();
    }
  });
});
