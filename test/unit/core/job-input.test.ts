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

  it('refuses targets that point at loopback, private or metadata addresses, naming target.url and why', () => {
    const reasonFor = (url: string, allowLoopback = false) =>
      problemsOf(() => parseCreateJob({ target: { url }, schedule: { type: 'once' } }, NOW, { allowLoopback }));
    expect(reasonFor('http://127.0.0.1:8080/hook')).toEqual([
      { field: 'target.url', reason: 'points to a loopback address (127.0.0.1)' },
    ]);
    expect(reasonFor('http://localhost/')[0]?.reason).toMatch(/loopback/);
    expect(reasonFor('http://0x7f.1/')[0]?.reason).toMatch(/loopback/);
    expect(reasonFor('http://10.1.2.3/', true)).toEqual([
      { field: 'target.url', reason: 'points to a private network address (10.1.2.3)' },
    ]);
    expect(reasonFor('http://169.254.169.254/latest/meta-data/', true)[0]?.reason).toMatch(/metadata/);
    expect(reasonFor('http://metadata.google.internal/', true)[0]?.reason).toMatch(/metadata/);
    expect(reasonFor('http://[::ffff:192.168.0.1]/', true)[0]?.reason).toMatch(/private/);
  });

  it('accepts loopback targets only when the rules allow them', () => {
    const input = { target: { url: 'http://127.0.0.1:8080/hook' }, schedule: { type: 'once' } };
    expect(parseCreateJob(input, NOW, { allowLoopback: true }).target.url).toBe('http://127.0.0.1:8080/hook');
    expect(() => parseCreateJob(input, NOW)).toThrow(ValidationError);
  });

  it('refuses an onFailure URL that points somewhere Chronos never calls', () => {
    const problems = problemsOf(() =>
      parseCreateJob(
        {
          target: { url: 'https://example.com' },
          schedule: { type: 'once' },
          onFailure: { url: 'http://192.168.0.1/' },
        },
        NOW,
      ),
    );
    expect(problems).toEqual([{ field: 'onFailure.url', reason: 'points to a private network address (192.168.0.1)' }]);
  });

  it('refuses hop-by-hop, reserved and Chronos headers, naming each', () => {
    const headers = {
      Connection: 'close',
      'Transfer-Encoding': 'chunked',
      Host: 'internal.example',
      'Content-Length': '5',
      'Proxy-Authorization': 'Basic x',
      TE: 'trailers',
      Upgrade: 'websocket',
      'Keep-Alive': 'timeout=5',
      Trailer: 'x',
      'Idempotency-Key': 'mine',
      'chronos-signature': 'v1=forged',
      'Chronos-Timestamp': '1',
      'Webhook-Signature': 'v1,forged',
      'webhook-id': 'mine',
      'Webhook-Timestamp': '1',
      Authorization: 'Bearer ok',
    };
    const problems = problemsOf(() =>
      parseCreateJob({ target: { url: 'https://example.com', headers }, schedule: { type: 'once' } }, NOW),
    );
    expect(problems.map((p) => p.field).sort()).toEqual(
      Object.keys(headers)
        .filter((name) => name !== 'Authorization')
        .map((name) => `target.headers.${name}`)
        .sort(),
    );
    expect(problems.find((p) => p.field === 'target.headers.Connection')?.reason).toMatch(/hop-by-hop/);
    expect(problems.find((p) => p.field === 'target.headers.Idempotency-Key')?.reason).toMatch(/set by Chronos/);
  });

  it('refuses control characters, non-Latin-1 values and a name given twice', () => {
    const problems = problemsOf(() =>
      parseCreateJob(
        {
          target: {
            url: 'https://example.com',
            headers: {
              'x-a': 'one\ntwo',
              'x-b': 'nul\u0000',
              'x-c': 'emoji 🎉',
              'X-D': '1',
              'x-d': '2',
              'x-e': 'ok\tfine',
            },
          },
          schedule: { type: 'once' },
        },
        NOW,
      ),
    );
    expect(problems).toEqual([
      { field: 'target.headers.x-a', reason: 'must not contain control characters' },
      { field: 'target.headers.x-b', reason: 'must not contain control characters' },
      { field: 'target.headers.x-c', reason: 'must contain only ISO-8859-1 characters' },
      { field: 'target.headers.x-d', reason: 'is given twice (header names are case-insensitive)' },
    ]);
  });

  it('refuses a header over 4 KiB and headers over 8 KiB in all', () => {
    const big = problemsOf(() =>
      parseCreateJob(
        { target: { url: 'https://example.com', headers: { 'x-big': 'v'.repeat(4092) } }, schedule: { type: 'once' } },
        NOW,
      ),
    );
    expect(big).toEqual([{ field: 'target.headers.x-big', reason: 'is larger than 4096 bytes (name and value)' }]);
    const atLimit = parseCreateJob(
      { target: { url: 'https://example.com', headers: { 'x-big': 'v'.repeat(4091) } }, schedule: { type: 'once' } },
      NOW,
    );
    expect(atLimit.target.headers['x-big']).toHaveLength(4091);

    const many = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`x-h${i}`, 'v'.repeat(3000)]));
    const total = problemsOf(() =>
      parseCreateJob({ target: { url: 'https://example.com', headers: many }, schedule: { type: 'once' } }, NOW),
    );
    expect(total).toEqual([{ field: 'target.headers', reason: 'are larger than 8192 bytes in all' }]);
  });
});
