import { describe, expect, it } from 'vitest';
import type { FieldProblem } from '#core/errors';
import { ValidationError } from '#core/errors';
import { checkBodyQuotas } from '#core/tenants/admit-job';
import { checkMinInterval, shortestGapSeconds } from '#core/tenants/quota-checks';
import { DEFAULT_QUOTAS } from '#core/tenants/quotas';

const START = Date.parse('2026-06-01T00:00:00Z');
const cron = (expression: string) => ({ type: 'cron' as const, expression, timezone: 'UTC', startAt: START });

describe('minimum interval', () => {
  it('measures intervals exactly and cron schedules by their closest occurrences', () => {
    expect(shortestGapSeconds({ type: 'interval', everySeconds: 30, startAt: START })).toBe(30);
    expect(shortestGapSeconds(cron('*/5 * * * *'))).toBe(300);
    expect(shortestGapSeconds(cron('0,10 9 * * *'))).toBe(600);
    expect(shortestGapSeconds({ type: 'once', at: START })).toBeUndefined();
  });

  it('refuses schedules firing more often than the minimum, naming the schedule field', () => {
    const problems: FieldProblem[] = [];
    checkMinInterval({ type: 'interval', everySeconds: 10, startAt: START }, 60, problems);
    checkMinInterval(cron('* * * * * *'), 60, problems);
    checkMinInterval(cron('*/2 * * * *'), 60, problems);

    expect(problems.map((p) => p.field)).toEqual(['schedule.everySeconds', 'schedule.expression']);
    expect(problems[0]?.reason).toBe("fires every 10 s; this tenant's minimum interval is 60 s");
  });
});

describe('payload size', () => {
  const quotas = { ...DEFAULT_QUOTAS, maxPayloadBytes: 100 };
  const schedule = { type: 'once' as const, at: START };

  it('counts the body and every header, secret ones too', () => {
    const target = { url: 'https://x.example', method: 'POST' as const, headers: { a: 'b'.repeat(40) } };
    const fits = () => checkBodyQuotas({ target: { ...target, body: 'x'.repeat(50) }, schedule }, quotas);
    const over = () =>
      checkBodyQuotas(
        { target: { ...target, body: 'x'.repeat(50) }, secretHeaders: { s: 'y'.repeat(20) }, schedule },
        quotas,
      );

    expect(fits).not.toThrow();
    expect(over).toThrow(ValidationError);
    try {
      over();
    } catch (error) {
      expect((error as ValidationError).details).toEqual([
        { field: 'target', reason: "body and headers are 112 bytes; this tenant's limit is 100" },
      ]);
    }
  });

  it('names target.body when the body alone is over the limit', () => {
    const target = { url: 'https://x.example', method: 'POST' as const, headers: {}, body: 'x'.repeat(101) };
    expect(() => checkBodyQuotas({ target, schedule }, quotas)).toThrow(/target.body/);
  });
});
