/**
 * The job form's issue #22 fields without a browser: `priority` sent when another lane than the
 * default is chosen (and on edit when changed), `flowControl` checked against the contract's
 * bounds before any call, each problem named as the API names it, and an emptied flow control
 * sent as null on edit.
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../client/src/index.ts';
import { normalizeErrors } from '../src/components/job-form/field-errors.ts';
import { buildCreateJob, buildUpdateJob } from '../src/components/job-form/to-request.ts';
import { emptyValues, type JobFormValues, valuesFromJob } from '../src/components/job-form/values.ts';

const values = (patch: Partial<JobFormValues>): JobFormValues => ({
  ...emptyValues(),
  timezone: 'UTC',
  url: 'https://x.test/hook',
  ...patch,
});

describe('priority and flow control in the create request', () => {
  it('sends neither by default, the lane when not normal, and the limits filled in', () => {
    const plain = buildCreateJob(values({}));
    expect(plain.body).not.toHaveProperty('priority');
    expect(plain.body).not.toHaveProperty('flowControl');

    const { body, errors } = buildCreateJob(
      values({ priority: 'high', flowKey: ' stripe ', flowRate: '2.5', flowParallelism: '' }),
    );
    expect(errors).toEqual({});
    expect(body).toMatchObject({ priority: 'high', flowControl: { key: 'stripe', ratePerSecond: 2.5 } });
    expect(body?.flowControl).not.toHaveProperty('parallelism');
  });

  it('refuses what the contract refuses, naming each field as the API does, and sends nothing', () => {
    const cases: [Partial<JobFormValues>, Record<string, RegExp>][] = [
      [{ flowKey: 'k', flowRate: '0.001' }, { 'flowControl.ratePerSecond': /0\.01 to 10000/ }],
      [{ flowKey: 'k', flowRate: '10001' }, { 'flowControl.ratePerSecond': /0\.01 to 10000/ }],
      [{ flowKey: 'k', flowParallelism: '1.5' }, { 'flowControl.parallelism': /whole number from 1 to 10000/ }],
      [{ flowKey: 'k', flowParallelism: '0' }, { 'flowControl.parallelism': /1 to 10000/ }],
      [{ flowKey: 'k'.repeat(129), flowRate: '1' }, { 'flowControl.key': /1 to 128 characters/ }],
      [{ flowRate: '5' }, { 'flowControl.key': /needed/ }],
      [{ flowKey: 'stripe' }, { 'flowControl.key': /needs a limit/ }],
    ];
    for (const [patch, expected] of cases) {
      const { body, errors } = buildCreateJob(values(patch));
      expect(body, JSON.stringify(patch)).toBeUndefined();
      expect(Object.keys(errors), JSON.stringify(patch)).toEqual(Object.keys(expected));
      for (const [field, reason] of Object.entries(expected)) expect(errors[field]).toMatch(reason);
    }
    // The edges are in bounds.
    expect(
      buildCreateJob(values({ flowKey: 'k'.repeat(128), flowRate: '0.01', flowParallelism: '10000' })).errors,
    ).toEqual({});
  });

  it("shows the API's error on flowControl as a whole at the key field", () => {
    expect(normalizeErrors({ flowControl: 'needs at least one limit' })).toEqual({
      'flowControl.key': 'needs at least one limit',
    });
  });
});

describe('priority and flow control in the edit request', () => {
  const job = {
    jobId: '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E',
    name: 'sync',
    status: 'ACTIVE',
    target: { url: 'https://x.test/hook', method: 'POST', headers: {} },
    schedule: { type: 'interval', everySeconds: 60 },
    misfire: 'fire_once',
    overlap: 'allow',
    timeoutSeconds: 30,
    slaSeconds: 5,
    delivery: 'at-least-once',
    retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
    onFailure: null,
    async: null,
    priority: 'high',
    flowControl: { key: 'adyen', parallelism: 4 },
  } as unknown as Job;

  it('fills the form from the job and sends only what changed', () => {
    const initial = valuesFromJob(job);
    expect(initial).toMatchObject({ priority: 'high', flowKey: 'adyen', flowRate: '', flowParallelism: '4' });
    expect(buildUpdateJob(initial, { ...initial })).toMatchObject({ unchanged: true });
    expect(buildUpdateJob(initial, { ...initial, priority: 'normal' }).body).toEqual({ priority: 'normal' });
    expect(buildUpdateJob(initial, { ...initial, flowRate: '3' }).body).toEqual({
      flowControl: { key: 'adyen', ratePerSecond: 3, parallelism: 4 },
    });
  });

  it('sends flowControl null when every flow-control field is emptied, and a job without one as normal', () => {
    const initial = valuesFromJob(job);
    expect(buildUpdateJob(initial, { ...initial, flowKey: '', flowParallelism: '' }).body).toEqual({
      flowControl: null,
    });
    const bare = valuesFromJob({ ...job, priority: undefined, flowControl: undefined } as unknown as Job);
    expect(bare).toMatchObject({ priority: 'normal', flowKey: '', flowRate: '', flowParallelism: '' });
  });
});
