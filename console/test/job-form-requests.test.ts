/**
 * The job form's pure parts, without a browser: wall-clock times in a zone turned into instants
 * and back across daylight-saving changes, and the form's text turned into request bodies — an
 * edit sends only what changed, and a changed target needs every stored secret typed again.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../client/src/index.ts';
import { buildCreateJob, buildUpdateJob } from '../src/components/job-form/to-request.ts';
import { emptyValues, type JobFormValues, valuesFromJob } from '../src/components/job-form/values.ts';
import { instantToWallTime, wallTimeToInstant } from '../src/components/job-form/zones.ts';

describe('wall-clock times in a zone', () => {
  it('turns a wall-clock time into the instant it names, on either side of a DST change', () => {
    expect(wallTimeToInstant('2030-06-01T09:00', 'Europe/Berlin')).toBe('2030-06-01T07:00:00.000Z');
    expect(wallTimeToInstant('2030-01-15T09:00:30', 'Europe/Berlin')).toBe('2030-01-15T08:00:30.000Z');
    expect(wallTimeToInstant('2026-03-08T01:59', 'America/New_York')).toBe('2026-03-08T06:59:00.000Z');
    expect(wallTimeToInstant('2026-03-08T03:00', 'America/New_York')).toBe('2026-03-08T07:00:00.000Z');
    expect(wallTimeToInstant('2030-06-01T09:00', 'UTC')).toBe('2030-06-01T09:00:00.000Z');
  });

  it('moves a time inside a spring-forward gap on by the gap, as clocks do', () => {
    // 02:30 does not exist in New York on 8 March 2026: it reads as 03:30 EDT.
    expect(wallTimeToInstant('2026-03-08T02:30', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z');
    expect(wallTimeToInstant('2026-03-29T02:15', 'Europe/Berlin')).toBe('2026-03-29T01:15:00.000Z');
  });

  it('reads a time that occurs twice on a fall-back night as its first pass', () => {
    expect(wallTimeToInstant('2026-11-01T01:30', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
    expect(wallTimeToInstant('2026-10-25T02:30', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('refuses text that is not a complete wall-clock time', () => {
    expect(wallTimeToInstant('', 'UTC')).toBeUndefined();
    expect(wallTimeToInstant('2030-06-01', 'UTC')).toBeUndefined();
    expect(wallTimeToInstant('2030-06-01T09:00Z', 'UTC')).toBeUndefined();
  });

  it('shows an instant as the wall-clock time of a zone, and back to the same instant', () => {
    expect(instantToWallTime('2026-10-25T00:30:00.000Z', 'Europe/Berlin')).toBe('2026-10-25T02:30:00');
    for (const iso of ['2026-03-29T00:59:59.000Z', '2026-07-01T12:00:00.000Z', '2026-12-31T23:00:00.000Z']) {
      expect(wallTimeToInstant(instantToWallTime(iso, 'Europe/Berlin'), 'Europe/Berlin')).toBe(iso);
    }
  });
});

const values = (patch: Partial<JobFormValues>): JobFormValues => ({ ...emptyValues(), timezone: 'UTC', ...patch });

describe('the create request', () => {
  it('sends what was filled in, the body as parsed JSON and the interval in seconds', () => {
    const { body, errors } = buildCreateJob(
      values({
        name: ' report ',
        url: 'https://example.com/hook',
        body: '{"a": [1, 2]}',
        scheduleType: 'interval',
        everyCount: '5',
        everyUnit: 'minutes',
        timeoutSeconds: '45',
        retryOn: '408, 429',
      }),
    );
    expect(errors).toEqual({});
    expect(body).toEqual({
      name: 'report',
      target: { url: 'https://example.com/hook', method: 'POST', body: { a: [1, 2] } },
      schedule: { type: 'interval', everySeconds: 300 },
      misfire: 'fire_once',
      overlap: 'allow',
      delivery: 'at-least-once',
      retry: { retryOn: [408, 429] },
      timeoutSeconds: 45,
    });
  });

  it('sends `async` with the settings filled in only when the job is asynchronous', () => {
    const base = { url: 'https://x.test', at: '' };
    const sync = buildCreateJob(values({ ...base, asyncHeartbeatTimeoutSeconds: '90' }));
    expect(sync.body).not.toHaveProperty('async');

    const partly = buildCreateJob(values({ ...base, asyncEnabled: true, asyncMaxDurationSeconds: ' 7200 ' }));
    expect(partly.body?.async).toEqual({ maxDurationSeconds: 7200 });

    const all = buildCreateJob(
      values({
        ...base,
        asyncEnabled: true,
        asyncHeartbeatTimeoutSeconds: '30',
        asyncMaxDurationSeconds: '600',
        asyncCancelGraceSeconds: '0',
      }),
    );
    expect(all.body?.async).toEqual({ heartbeatTimeoutSeconds: 30, maxDurationSeconds: 600, cancelGraceSeconds: 0 });
  });

  it('refuses a body that is not JSON and a date that is not complete, naming their fields', () => {
    const { body, errors } = buildCreateJob(values({ url: 'https://x.test', body: '{"a":', at: '2030-06-01' }));
    expect(body).toBeUndefined();
    expect(Object.keys(errors).sort()).toEqual(['schedule.at', 'target.body']);
    expect(errors['target.body']).toMatch(/^is not valid JSON/);
  });
});

describe('the edit request', () => {
  const job: Job = {
    jobId: '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E',
    name: 'weekday-report',
    status: 'ACTIVE',
    target: {
      url: 'https://example.com/hook',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      secretHeaders: { authorization: '***' },
      body: '{"report":"daily"}',
    },
    schedule: {
      type: 'cron',
      expression: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      startAt: '2026-11-24T08:58:31.000Z',
    },
    misfire: 'fire_once',
    overlap: 'allow',
    timeoutSeconds: 30,
    async: null,
    slaSeconds: 5,
    priority: 'normal',
    retry: { maxAttempts: 3, initialDelaySeconds: 10, maxDelaySeconds: 600, multiplier: 2, retryOn: [429] },
    delivery: 'at-least-once',
    onFailure: { url: 'https://example.com/alerts' },
    nextFireAt: '2026-11-25T08:00:00.000Z',
    version: 3,
    createdAt: '2026-11-24T08:58:31.002Z',
    updatedAt: '2026-11-24T09:00:00.310Z',
    latestRun: null,
  };
  const initial = valuesFromJob(job);

  it('fills the form from the job in the schedule zone, with no secret value', () => {
    expect(initial).toMatchObject({
      expression: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      startAt: '2026-11-24T09:58:31',
      body: '{\n  "report": "daily"\n}',
    });
    expect(initial.secretHeaders).toEqual([
      expect.objectContaining({ name: 'authorization', value: '', stored: true }),
    ]);
  });

  it('sends only the fields that changed', () => {
    expect(buildUpdateJob(initial, { ...initial, name: 'renamed', overlap: 'forbid' })).toEqual({
      body: { name: 'renamed', overlap: 'forbid' },
      errors: {},
    });
    expect(buildUpdateJob(initial, { ...initial, expression: '0 10 * * 1-5' }).body).toEqual({
      schedule: {
        type: 'cron',
        expression: '0 10 * * 1-5',
        timezone: 'Europe/Berlin',
        startAt: '2026-11-24T08:58:31.000Z',
      },
    });
    expect(buildUpdateJob(initial, { ...initial })).toEqual({ errors: {}, unchanged: true });
  });

  it('fills the policies from the job and sends a changed retry policy whole, and a cleared notice as null', () => {
    expect(initial).toMatchObject({
      retryMaxAttempts: '3',
      retryInitialDelaySeconds: '10',
      retryMaxDelaySeconds: '600',
      retryMultiplier: '2',
      retryOn: '429',
      delivery: 'at-least-once',
      onFailureUrl: 'https://example.com/alerts',
    });
    expect(buildUpdateJob(initial, { ...initial, retryMaxAttempts: '5', onFailureUrl: '' }).body).toEqual({
      retry: { maxAttempts: 5, initialDelaySeconds: 10, maxDelaySeconds: 600, multiplier: 2, retryOn: [429] },
      onFailure: null,
    });
    expect(buildUpdateJob(initial, { ...initial, delivery: 'at-most-once' }).body).toEqual({
      delivery: 'at-most-once',
    });
  });

  it('refuses an emptied timeout or SLA at its field instead of saying nothing changed', () => {
    const emptied = buildUpdateJob(initial, { ...initial, timeoutSeconds: '', slaSeconds: ' ' });
    expect(emptied.unchanged).toBeUndefined();
    expect(emptied.body).toBeUndefined();
    expect(Object.keys(emptied.errors).sort()).toEqual(['slaSeconds', 'timeoutSeconds']);
  });

  it('sends an emptied retry policy as the defaults, not as no change', () => {
    const emptied = {
      ...initial,
      retryMaxAttempts: '',
      retryInitialDelaySeconds: '',
      retryMaxDelaySeconds: '',
      retryMultiplier: '',
      retryOn: '',
    };
    expect(buildUpdateJob(initial, emptied)).toEqual({ body: { retry: {} }, errors: {} });
  });

  it('edits a job whose body is text, not JSON: other fields alone, or the target with the text kept', () => {
    const textJob: Job = {
      ...job,
      target: { ...job.target, secretHeaders: {}, body: 'a=1&b=2' },
    };
    const loaded = valuesFromJob(textJob);
    expect(buildUpdateJob(loaded, { ...loaded, name: 'renamed' })).toEqual({ body: { name: 'renamed' }, errors: {} });
    expect(buildUpdateJob(loaded, { ...loaded, url: 'https://example.com/v2' }).body?.target).toEqual({
      url: 'https://example.com/v2',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'a=1&b=2',
    });
    // Edited into other text that is not JSON: said at the body, never dropped unseen.
    expect(buildUpdateJob(loaded, { ...loaded, body: 'a=3' }).errors['target.body']).toMatch(/not valid JSON/);
  });

  it('needs a stored secret typed again when the target changes, and sends it once typed', () => {
    const retargeted = { ...initial, url: 'https://example.com/v2' };
    expect(buildUpdateJob(initial, retargeted).errors['target.secretHeaders.authorization']).toMatch(
      /needs its value again/,
    );
    const typed = {
      ...retargeted,
      secretHeaders: initial.secretHeaders.map((row) => ({ ...row, value: 'Bearer new' })),
    };
    expect(buildUpdateJob(initial, typed).body?.target).toEqual({
      url: 'https://example.com/v2',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      secretHeaders: { authorization: 'Bearer new' },
      body: { report: 'daily' },
    });
  });
});
