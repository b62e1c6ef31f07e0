/**
 * How async runs and jobs are shown (core/views.ts): a run's progress, heartbeat, checkpoint time,
 * cancel request and output in history (the checkpoint itself never), the same fields null on a
 * synchronous run, and a job's `async` settings; each answer as the OpenAPI document describes it.
 */
import { describe, expect, it } from 'vitest';
import type { Run } from '#core/model';
import type { StoredJob } from '#core/ports';
import { jobView, runView } from '#core/views';
import { ROUTES } from '#handlers/api/routes';
import { ResponseConformance } from '../../../support/openapi-conformance.ts';

const DUE = Date.UTC(2026, 10, 24, 9, 0, 0);
const JOB_ID = '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E';
const SETTINGS = { heartbeatTimeoutSeconds: 120, maxDurationSeconds: 86_400, cancelGraceSeconds: 60 };
const syncRun: Run = {
  tenantId: 't',
  jobId: JOB_ID,
  runId: `${JOB_ID}_${DUE}_1`,
  scheduledFor: DUE,
  attempt: 1,
  status: 'SUCCEEDED',
  createdAt: DUE - 60_000,
  startedAt: DUE + 50,
  completedAt: DUE + 300,
  httpStatus: 200,
  durationMs: 250,
};
const asyncRun: Run = {
  ...syncRun,
  status: 'RUNNING',
  completedAt: undefined,
  httpStatus: 202,
  async: SETTINGS,
  acceptedAt: DUE + 180,
  heartbeatAt: DUE + 310_000,
  heartbeatDeadline: DUE + 430_000,
  maxDurationDeadline: DUE + 86_400_050,
  progress: 42.5,
  progressMessage: 'exported 42 of 100 files',
  checkpointJson: '{"cursor":"file-42"}',
  checkpointAt: DUE + 310_000,
  cancelRequestedAt: DUE + 320_000,
  deadlineShard: 'due#03',
  deadlineAt: DUE + 380_000,
};
const job: StoredJob = {
  tenantId: 't',
  jobId: JOB_ID,
  target: { url: 'https://example.com/hooks/export', method: 'POST', headers: {} },
  schedule: { type: 'once', at: DUE },
  policies: { misfire: 'fire_once', overlap: 'allow' },
  retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
  delivery: 'at-least-once',
  timeoutSeconds: 30,
  status: 'ACTIVE',
  version: 1,
  definitionVersion: 1,
  createdAt: DUE - 60_000,
  updatedAt: DUE - 60_000,
} as StoredJob;

const conformance = new ResponseConformance(ROUTES);
const answer = (path: string, body: unknown) =>
  conformance.violations({
    method: 'GET',
    path,
    status: 200,
    headers: { 'content-type': 'application/json', etag: '"1"' },
    body: JSON.stringify(body),
  });

describe('an async run in history', () => {
  it('shows its progress, heartbeat, checkpoint time and cancel request, never the checkpoint', () => {
    const view = runView(asyncRun);

    expect(view).toMatchObject({
      async: true,
      acceptedAt: '2026-11-24T09:00:00.180Z',
      progress: 42.5,
      progressMessage: 'exported 42 of 100 files',
      heartbeatAt: '2026-11-24T09:05:10.000Z',
      heartbeatDeadline: '2026-11-24T09:07:10.000Z',
      checkpointAt: '2026-11-24T09:05:10.000Z',
      cancelRequestedAt: '2026-11-24T09:05:20.000Z',
      output: null,
    });
    const text = JSON.stringify(view);
    expect(text).not.toContain('file-42');
    for (const internal of ['checkpointJson', 'outputJson', 'deadlineShard', 'deadlineAt', 'asyncRevision'])
      expect(view).not.toHaveProperty(internal);
  });

  it("shows a completion's output as the JSON the worker sent", () => {
    const done = { ...asyncRun, status: 'SUCCEEDED' as const, outputJson: '{"files":100,"bytes":[1,2]}' };

    expect(runView(done).output).toEqual({ files: 100, bytes: [1, 2] });
    expect(runView({ ...done, outputJson: '"just text"' }).output).toBe('just text');
  });

  it('shows an output that no longer parses as null instead of failing the read', () => {
    expect(runView({ ...asyncRun, outputJson: '{broken' }).output).toBeNull();
  });

  it('shows the async fields as null on a synchronous run, so every run has one shape', () => {
    expect(runView(syncRun)).toMatchObject({
      async: false,
      acceptedAt: null,
      progress: null,
      progressMessage: null,
      heartbeatAt: null,
      heartbeatDeadline: null,
      checkpointAt: null,
      cancelRequestedAt: null,
      output: null,
    });
  });

  it('answers both as the run schema of the OpenAPI document describes them', () => {
    const page = { items: [runView(asyncRun), runView({ ...asyncRun, outputJson: '[1]' }), runView(syncRun)] };
    expect(answer(`/v1/jobs/${JOB_ID}/runs`, { ...page, cursor: null })).toEqual([]);
  });
});

describe("a job's async settings", () => {
  it('shows every field of an async job, and null for a synchronous one', () => {
    expect(jobView({ ...job, async: SETTINGS }).async).toEqual(SETTINGS);
    expect(jobView(job).async).toBeNull();
  });

  it('answers both as the job schema of the OpenAPI document describes them', () => {
    expect(answer(`/v1/jobs/${JOB_ID}`, jobView({ ...job, async: SETTINGS }))).toEqual([]);
    expect(answer(`/v1/jobs/${JOB_ID}`, jobView(job))).toEqual([]);
  });
});
