/**
 * POST /v1/schedules/preview through the local runtime: the occurrences the scanner's schedule code
 * gives (daylight-saving time in Europe/Berlin, maxRuns counted from the first occurrence), a bad
 * schedule answered with exactly the 400 job creation gives it, and arbitrary bodies never a 5xx.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { createBody } from './fuzz-bodies.ts';
import { instantText, numberNear, unicodeText } from './fuzz-edges.ts';
import { assertSeeded } from './fuzz-seed.ts';
import { type Answer, type Api, apiAs } from './support/tenant-api.ts';

let chronos: LocalChronos;
let api: Api;

beforeAll(async () => {
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 0, log: () => undefined });
  api = apiAs(chronos.apiUrl, chronos.token);
}, 60_000);
afterAll(async () => {
  await chronos?.stop();
});

const preview = (body: unknown) => api('POST', '/v1/schedules/preview', body);
const fieldsOf = (answer: Answer) => answer.body.error.details.map((d: { field: string }) => d.field);

describe('POST /v1/schedules/preview', () => {
  it('skips Berlin’s missing 02:30 to 03:00 CEST and fires once in the repeated hour, like the scanner', async () => {
    // 2036: summer time starts on 30 March (02:00 CET → 03:00 CEST) and ends on 26 October.
    const spring = await preview({
      schedule: {
        type: 'cron',
        expression: '30 2 * * *',
        timezone: 'Europe/Berlin',
        startAt: '2036-03-28T00:00:00+01:00',
      },
      count: 4,
    });
    const autumn = await preview({
      schedule: {
        type: 'cron',
        expression: '30 2 * * *',
        timezone: 'Europe/Berlin',
        startAt: '2036-10-25T00:00:00+02:00',
      },
      count: 3,
    });

    expect(spring.status, JSON.stringify(spring.body)).toBe(200);
    expect(spring.body).toEqual({
      occurrences: [
        '2036-03-28T01:30:00.000Z', // 02:30 CET
        '2036-03-29T01:30:00.000Z', // 02:30 CET
        '2036-03-30T01:00:00.000Z', // 02:30 does not exist: 03:00 CEST
        '2036-03-31T00:30:00.000Z', // 02:30 CEST
      ],
    });
    expect(autumn.body).toEqual({
      occurrences: [
        '2036-10-25T00:30:00.000Z', // 02:30 CEST
        '2036-10-26T00:30:00.000Z', // 02:30 happens twice: the first, still CEST
        '2036-10-27T01:30:00.000Z', // 02:30 CET
      ],
    });
  });

  it('keeps a weekday 09:00 at 09:00 Berlin time across the change, and pages with from', async () => {
    const schedule = {
      type: 'cron',
      expression: '0 9 * * 1-5',
      timezone: 'Europe/Berlin',
      startAt: '2036-03-27T00:00:00+01:00',
    };

    const first = await preview({ schedule, count: 2 });
    const next = await preview({ schedule, count: 2, from: '2036-03-28T12:00:00+01:00' });

    // Friday 28 March at 09:00 CET, then Monday 31 and Tuesday 1 April at 09:00 CEST.
    expect(first.body).toEqual({ occurrences: ['2036-03-27T08:00:00.000Z', '2036-03-28T08:00:00.000Z'] });
    expect(next.body).toEqual({ occurrences: ['2036-03-31T07:00:00.000Z', '2036-04-01T07:00:00.000Z'] });
  });

  it('counts maxRuns from the first occurrence, also when listing from later on', async () => {
    const schedule = { type: 'interval', everySeconds: 3600, startAt: '2036-01-01T00:00:00Z', maxRuns: 3 };

    const all = await preview({ schedule });
    const later = await preview({ schedule, from: '2036-01-01T01:30:00Z' });
    const once = await preview({ schedule: { type: 'once', at: '2036-01-01T00:00:00Z' }, count: 5 });

    expect(all.body.occurrences).toEqual([
      '2036-01-01T00:00:00.000Z',
      '2036-01-01T01:00:00.000Z',
      '2036-01-01T02:00:00.000Z',
    ]);
    expect(later.body.occurrences).toEqual(['2036-01-01T02:00:00.000Z']);
    expect(once.body.occurrences).toEqual(['2036-01-01T00:00:00.000Z']);
  });

  it('lists what the job created with the same schedule shows as its upcoming occurrences', async () => {
    const schedules = [
      { type: 'cron', expression: '30 2 * * *', timezone: 'Europe/Berlin', startAt: '2036-10-24T00:00:00+02:00' },
      { type: 'cron', expression: '*/20 1-3 * * 0', timezone: 'America/New_York', startAt: '2036-11-01T00:00:00Z' },
      { type: 'interval', everySeconds: 5400, startAt: '2036-03-30T00:15:00+01:00', maxRuns: 4 },
    ];
    for (const schedule of schedules) {
      const created = await api('POST', '/v1/jobs', { target: { url: 'https://example.com/hook' }, schedule });
      const job = await api('GET', `/v1/jobs/${created.body.jobId}`);
      const previewed = await preview({ schedule, count: 5 });

      expect(job.body.upcoming.length, JSON.stringify(schedule)).toBeGreaterThan(0);
      expect(previewed.body.occurrences, JSON.stringify(schedule)).toEqual(job.body.upcoming);
    }
  });

  it('answers a bad schedule with the same 400, fields and reasons as job creation', async () => {
    const bad = [
      { type: 'cron', expression: '0 9 * *', timezone: 'Europe/Berlim' },
      { type: 'cron', expression: '0 0 30 2 *' },
      { type: 'interval', everySeconds: 60, startAt: '2020-01-01T00:00:00Z', endAt: '2020-01-02T00:00:00Z' },
      { type: 'interval', everySeconds: 0, expression: '* * * * *' },
      { type: 'once', at: '2026-03-08T02:30:00' },
      { type: 'weekly' },
    ];
    for (const schedule of bad) {
      const created = await api('POST', '/v1/jobs', { target: { url: 'https://example.com/hook' }, schedule });
      const previewed = await preview({ schedule });

      expect(created.status, JSON.stringify(schedule)).toBe(400);
      expect(previewed.status, JSON.stringify(schedule)).toBe(400);
      expect(previewed.body.error.code).toBe('VALIDATION_FAILED');
      expect(previewed.body.error.details.length).toBeGreaterThan(0);
      expect(previewed.body.error.details, JSON.stringify(schedule)).toEqual(created.body.error.details);
    }
  });

  it('names count, from, unknown fields and a missing schedule', async () => {
    const schedule = { type: 'interval', everySeconds: 60 };

    const answers = {
      count: [await preview({ schedule, count: 0 }), await preview({ schedule, count: 101 })],
      countText: await preview({ schedule, count: '5' }),
      from: await preview({ schedule, from: '2036-01-01T00:00:00' }),
      extra: await preview({ schedule, limit: 5 }),
      missing: await preview({ count: 5 }),
      empty: await api('POST', '/v1/schedules/preview'),
    };

    for (const answer of answers.count) expect(fieldsOf(answer)).toEqual(['count']);
    expect(fieldsOf(answers.countText)).toEqual(['count']);
    expect(answers.from.body.error.details).toEqual([
      { field: 'from', reason: 'must include a zone designator (Z or ±hh:mm)' },
    ]);
    expect(answers.extra.body.error.details).toEqual([{ field: 'limit', reason: 'is not an allowed field' }]);
    expect(answers.missing.body.error.details).toEqual([{ field: 'schedule', reason: 'is required' }]);
    expect(fieldsOf(answers.empty)).toEqual(['body']);
  });

  it('lists 10 occurrences by default, from now on, and needs a token', async () => {
    const before = Date.now();
    const answer = await preview({ schedule: { type: 'interval', everySeconds: 60 } });
    const anonymous = await apiAs(chronos.apiUrl, undefined)('POST', '/v1/schedules/preview', {
      schedule: { type: 'interval', everySeconds: 60 },
    });

    const times = (answer.body.occurrences as string[]).map((at) => Date.parse(at));
    expect(times).toHaveLength(10);
    expect(times[0]).toBeGreaterThanOrEqual(before - 1_000);
    expect(times[0]).toBeLessThanOrEqual(Date.now());
    expect(times.slice(1).map((at, i) => at - (times[i] as number))).toEqual(Array(9).fill(60_000));
    expect(anonymous.status).toBe(401);
  });

  it('never answers a 5xx, whatever the body (property)', async () => {
    const schedules = createBody('https://example.com').map((body) => body.schedule);
    const body = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record(
          {
            schedule: fc.oneof({ weight: 4, arbitrary: schedules }, { weight: 1, arbitrary: fc.anything() }),
            count: fc.oneof(
              { weight: 4, arbitrary: fc.integer({ min: 1, max: 100 }) },
              { weight: 1, arbitrary: numberNear(1, 100) },
              { weight: 1, arbitrary: fc.anything() },
            ),
            from: fc.oneof(
              { weight: 4, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) },
              { weight: 1, arbitrary: instantText },
              { weight: 1, arbitrary: fc.oneof(unicodeText, fc.anything()) },
            ),
          },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: fc.anything() },
    );
    const raw = fc.oneof(
      { weight: 6, arbitrary: body.map((value) => JSON.stringify(value) ?? '') },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    );

    const statuses = new Map<number, number>();
    await assertSeeded(
      'schedule preview bodies',
      fc.asyncProperty(raw, async (text) => {
        const answer = await preview(text);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expect(answer.status, `${text.slice(0, 300)} → ${JSON.stringify(answer.body)}`).toBeLessThan(500);
        if (answer.status === 200) {
          const times = (answer.body.occurrences as string[]).map((at) => Date.parse(at));
          expect(times.every((at, i) => i === 0 || at > (times[i - 1] as number))).toBe(true);
          const count = (JSON.parse(text) as { count?: number }).count ?? 10;
          expect(times.length).toBeLessThanOrEqual(count);
        } else {
          expect(answer.status, text).toBe(400);
          expect(answer.body.error.details.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 300 },
    );
    // The premise: bodies reached the schedule code (200s), not only the validators (400s).
    expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(20);
    expect(statuses.get(400) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(20);
  }, 60_000);
});
