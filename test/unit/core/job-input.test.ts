import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core/errors';
import { parseCreateJob } from '#core/job-input';

const NOW = Date.parse('2026-06-01T12:00:00Z');

function problemsOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.details;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('create-job input', () => {
  it('defaults to POST, now, and the default timeout', () => {
    const fields = parseCreateJob({ target: { url: 'https://example.com/hook' }, schedule: { type: 'once' } }, NOW);
    expect(fields).toEqual({
      target: { url: 'https://example.com/hook', method: 'POST', headers: {} },
      schedule: { type: 'once', at: NOW },
      policies: { misfire: 'fire_once', overlap: 'allow' },
      retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 300, multiplier: 2 },
      delivery: 'at-least-once',
      timeoutSeconds: 30,
    });
  });

  it('serializes a JSON body once and labels it as JSON', () => {
    const fields = parseCreateJob(
      { target: { url: 'https://example.com', body: { a: 1 } }, schedule: { type: 'once' } },
      NOW,
    );
    expect(fields.target.body).toBe('{"a":1}');
    expect(fields.target.headers['content-type']).toBe('application/json');
  });

  it('keeps a string body and an explicit content type as given', () => {
    const fields = parseCreateJob(
      {
        target: { url: 'https://example.com', body: 'a=1', headers: { 'Content-Type': 'text/plain' } },
        schedule: { type: 'once' },
      },
      NOW,
    );
    expect(fields.target.body).toBe('a=1');
    expect(fields.target.headers).toEqual({ 'Content-Type': 'text/plain' });
  });

  it('parses the due time with its zone', () => {
    const fields = parseCreateJob(
      { target: { url: 'https://example.com' }, schedule: { type: 'once', at: '2026-06-01T14:00:00+02:00' } },
      NOW,
    );
    expect(fields.schedule).toEqual({ type: 'once', at: NOW });
  });

  it('lists every problem with its field', () => {
    const problems = problemsOf(() =>
      parseCreateJob(
        {
          target: { url: 'ftp://example.com', headers: { 'bad header': 'x', ok: 'line\r\nbreak' } },
          schedule: { type: 'once', at: 'tomorrow' },
        },
        NOW,
      ),
    );
    expect(problems.map((p) => p.field).sort()).toEqual([
      'schedule.at',
      'target.headers.bad header',
      'target.headers.ok',
      'target.url',
    ]);
  });

  it('rejects URLs that are not absolute or carry credentials', () => {
    expect(
      problemsOf(() => parseCreateJob({ target: { url: '/relative' }, schedule: { type: 'once' } }, NOW))[0],
    ).toEqual({
      field: 'target.url',
      reason: 'is not a valid absolute URL',
    });
    expect(
      problemsOf(() =>
        parseCreateJob({ target: { url: 'https://u:p@example.com' }, schedule: { type: 'once' } }, NOW),
      )[0]?.field,
    ).toBe('target.url');
  });

  it('takes recurring schedules and policies, defaulting to fire_once and allow', () => {
    const fields = parseCreateJob(
      { target: { url: 'https://example.com' }, schedule: { type: 'interval', everySeconds: 5 }, overlap: 'forbid' },
      NOW,
    );
    expect(fields.schedule).toEqual({ type: 'interval', everySeconds: 5, startAt: NOW });
    expect(fields.policies).toEqual({ misfire: 'fire_once', overlap: 'forbid' });
  });

  it('rejects an initial retry delay above the maximum and 429 in retryOn', () => {
    const problems = problemsOf(() =>
      parseCreateJob(
        {
          target: { url: 'https://example.com' },
          schedule: { type: 'once' },
          retry: { initialDelaySeconds: 600, maxDelaySeconds: 60, retryOn: [429] },
        },
        NOW,
      ),
    );
    expect(problems.map((p) => p.field).sort()).toEqual(['retry.initialDelaySeconds', 'retry.retryOn']);
  });

  it('reports target and schedule problems together', () => {
    const problems = problemsOf(() =>
      parseCreateJob(
        { target: { url: 'nope' }, schedule: { type: 'cron', expression: '61 * * * *', timezone: 'Mars/Olympus' } },
        NOW,
      ),
    );
    expect(problems.map((p) => p.field).sort()).toEqual(['schedule.expression', 'schedule.timezone', 'target.url']);
  });
});
