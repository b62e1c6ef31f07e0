/**
 * Properties of the scanner's passes over a job, for every schedule type over the whole range:
 * pass after pass, each materializing what falls within its horizon and moving `nextFireAt`, the
 * runs made are exactly the schedule's occurrences — none twice, none skipped at a pass boundary,
 * none past maxRuns or the end of the range — and a valid schedule is never found unplannable.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstFireAt, planFiring } from '#core/fire-plan';
import type { DueJob } from '#core/ports';
import { upcoming } from '#core/schedule/occurrences';
import { anySchedule } from './arbitraries.ts';

/** Enough occurrences to cross several pass boundaries, few enough to keep a case fast. */
const OCCURRENCES = 40;

describe('scanner passes over the whole range', () => {
  it('materialize exactly the schedule’s occurrences, pass after pass, whatever the horizon', () => {
    fc.assert(
      fc.property(
        anySchedule,
        fc.integer({ min: 1_000, max: 15 * 60_000 }),
        fc.infiniteStream(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })),
        (schedule, horizon, offsets) => {
          const startAt = schedule.type === 'once' ? schedule.at : schedule.startAt;
          const first = firstFireAt(schedule, startAt);
          const job: DueJob = {
            tenantId: 't',
            jobId: 'J',
            schedule,
            policies: { misfire: 'fire_once', overlap: 'allow' },
            status: 'ACTIVE',
            version: 1,
            occurrenceCount: 0,
            nextFireAt: first ?? 0,
          };
          const made: number[] = [];
          let nextFireAt = first;
          const pace = offsets[Symbol.iterator]();
          for (let pass = 0; nextFireAt !== undefined && made.length < OCCURRENCES && pass < 1_000; pass++) {
            // The scanner looks at the job some time within the horizon before it is due (never late).
            const now = nextFireAt - Math.floor((pace.next().value as number) * horizon);
            const plan = planFiring({ ...job, nextFireAt, occurrenceCount: made.length }, now, now + horizon);
            for (const at of plan.occurrences) {
              expect(at).toBeGreaterThanOrEqual(nextFireAt);
              expect(at).toBeLessThanOrEqual(now + horizon);
            }
            if (plan.nextFireAt !== undefined) expect(plan.nextFireAt).toBeGreaterThan(now + horizon);
            made.push(...plan.occurrences);
            nextFireAt = plan.nextFireAt;
          }
          expect(made).toEqual(upcoming(schedule, startAt, 0, made.length));
          // When the walk ended, the schedule had nothing more (or the walk had enough).
          if (nextFireAt === undefined) expect(upcoming(schedule, startAt, 0, made.length + 1)).toEqual(made);
        },
      ),
      { numRuns: 300 },
    );
  });
});
