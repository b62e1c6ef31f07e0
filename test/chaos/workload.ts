/**
 * The chaos workload: one-time jobs created at an even pace, each due right away or up to
 * `dueWithinMs` later, and recurring interval jobs with a fixed start and `maxRuns`, so every
 * occurrence the run must produce is known in advance. A fifth of the jobs are at-most-once.
 */
import type { ChaosConfig } from './chaos-config.ts';
import { seededRandom } from './seeded-random.ts';

export type Delivery = 'at-least-once' | 'at-most-once';

export interface JobPlan {
  /** Unique, and the job's `name`: how stored jobs are matched to their plan. */
  name: string;
  kind: 'once' | 'recurring';
  delivery: Delivery;
  /** When to create the job, from the workload start. */
  createAtMs: number;
  /** One-time: due this long after the job is created (0 = right away). */
  dueAfterMs: number;
  /** Recurring: the schedule, fixed from the start. */
  everySeconds?: number;
  maxRuns?: number;
}

/** A plan as created: its body and the occurrences (scheduledFor, ms) it must produce. */
export interface CreatedJob extends JobPlan {
  jobId?: string;
  occurrences: number[];
  /** The API's answer when creation failed. */
  createError?: string;
}

/** Every job of the run, recurring ones first (all created at the start), then one-time ones in creation order. */
export function planWorkload(config: ChaosConfig): JobPlan[] {
  const random = seededRandom(config.seed);
  const delivery = (): Delivery => (random() < config.atMostOnceShare ? 'at-most-once' : 'at-least-once');
  const recurring = Array.from({ length: config.recurringJobs }, (_, i): JobPlan => {
    const everySeconds = config.recurringEverySeconds[i % config.recurringEverySeconds.length] ?? 3;
    return {
      name: `chaos-recurring-${i}`,
      kind: 'recurring',
      delivery: delivery(),
      createAtMs: 0,
      dueAfterMs: 0,
      everySeconds,
      maxRuns: Math.max(1, Math.floor(config.recurringSpanMs / (everySeconds * 1000))),
    };
  });
  const once = Array.from(
    { length: config.oneTimeJobs },
    (_, i): JobPlan => ({
      name: `chaos-once-${i}`,
      kind: 'once',
      delivery: delivery(),
      createAtMs: Math.floor((i * config.feedMs) / Math.max(1, config.oneTimeJobs)),
      dueAfterMs: random() < config.immediateShare ? 0 : Math.floor(random() * config.dueWithinMs),
    }),
  );
  return [...recurring, ...once];
}

/** The POST /v1/jobs body of a plan created at `now`, and the occurrences it must produce. */
export function jobBody(plan: JobPlan, config: ChaosConfig, targetUrl: string, now: number) {
  const common = {
    name: plan.name,
    target: { url: targetUrl, method: 'POST', body: { job: plan.name } },
    timeoutSeconds: config.timeoutSeconds,
    retry: config.retry,
    delivery: plan.delivery,
  };
  if (plan.kind === 'once') {
    const at = now + plan.dueAfterMs;
    return { body: { ...common, schedule: { type: 'once', at: new Date(at).toISOString() } }, occurrences: [at] };
  }
  // From the creation time, not the workload start: a job created after its startAt would skip
  // the slots before its creation, and the plan would no longer be the schedule.
  const startAt = now + config.recurringStartMs;
  const every = (plan.everySeconds ?? 1) * 1000;
  return {
    body: {
      ...common,
      schedule: {
        type: 'interval',
        everySeconds: plan.everySeconds,
        startAt: new Date(startAt).toISOString(),
        maxRuns: plan.maxRuns,
      },
    },
    occurrences: Array.from({ length: plan.maxRuns ?? 1 }, (_, k) => startAt + k * every),
  };
}
