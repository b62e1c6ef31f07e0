/**
 * The fuzzer's own checks, fed crafted evidence: a view the API really produces fits its schema,
 * and a view or cursor that is wrong in one place does not — so the model-based fuzz test cannot
 * pass because its schemas or its DynamoDB key check accept anything.
 */
import { describe, expect, it } from 'vitest';
import { newRun } from '#core/use-cases/new-run';
import { jobView, runView } from '#core/views';
import { jobFixture } from '../support/job-fixture.ts';
import { decodeCursor, keyProblemsForDynamoDb, mutateKey } from './fuzz-cursors.ts';
import { shapeProblems } from './fuzz-shapes.ts';

const now = Date.UTC(2026, 10, 24, 12);
const JOB_ID = '01KAAAAAAAAAAAAAAAAAAAAAAA';
const job = jobFixture(now + 3_600_000, { tenantId: 'dev-tenant', jobId: JOB_ID, nextFireAt: now + 3_600_000 });
const run = { ...newRun(job, now, 1, now, 7), status: 'SUCCEEDED' as const, httpStatus: 200, completedAt: now + 40 };

describe('the 2xx schemas the fuzzer holds answers to', () => {
  it('accept the views the API builds', () => {
    expect(shapeProblems('job', jobView(job, run, [now + 3_600_000]))).toEqual([]);
    expect(shapeProblems('job', jobView({ ...job, name: 'é😀', status: 'PAUSED', pausedAt: now }))).toEqual([]);
    expect(shapeProblems('run', runView(run))).toEqual([]);
    expect(shapeProblems('runs', { items: [runView(run)], cursor: null })).toEqual([]);
  });

  it('refuse a view wrong in one place: a null date, an extra or missing field, a date past 2199, a bad status', () => {
    const view = jobView(job, run);
    expect(shapeProblems('job', { ...view, createdAt: null })).not.toEqual([]);
    expect(shapeProblems('job', { ...view, tenantId: 'dev-tenant' })).not.toEqual([]);
    const { version: _version, ...withoutVersion } = view;
    expect(shapeProblems('job', withoutVersion)).not.toEqual([]);
    expect(shapeProblems('job', { ...view, schedule: { type: 'once', at: '2286-11-20T17:46:40.000Z' } })).not.toEqual(
      [],
    );
    expect(shapeProblems('job', { ...view, status: 'RUNNING' })).not.toEqual([]);
    expect(shapeProblems('run', { ...runView(run), scheduledFor: null })).not.toEqual([]);
    expect(shapeProblems('run', { ...runView(run), attempt: 1000 })).not.toEqual([]);
    expect(shapeProblems('runs', { items: [runView(run)] })).not.toEqual([]);
  });
});

describe('the DynamoDB key check of accepted cursors', () => {
  const real = { tenantId: 'dev-tenant', jobId: JOB_ID };
  const cursor = Buffer.from(JSON.stringify(real)).toString('base64url');

  it('passes a cursor the API issues', () => {
    expect(keyProblemsForDynamoDb(decodeCursor(cursor))).toEqual([]);
  });

  it('flags a key widened past 1024 bytes of UTF-8, and a lone surrogate', () => {
    const widened = mutateKey(real, { kind: 'widen', pick: 1, char: 'é', bytes: 1100 });
    expect(String(widened.jobId).length).toBeLessThan(1024);
    expect(keyProblemsForDynamoDb(widened)).toEqual([
      "jobId is 1100 bytes of UTF-8, over DynamoDB's 1024-byte key limit",
    ]);
    expect(keyProblemsForDynamoDb({ ...real, jobId: 'a\ud800' })).toEqual(['jobId is not well-formed Unicode']);
  });
});
