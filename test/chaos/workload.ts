/**
 * The chaos workload: one-time jobs created at an even pace, each due right away or up to
 * `dueWithinMs` later, and recurring interval jobs with a fixed start and `maxRuns`, so every
 * occurrence the run must produce is known in advance. A fifth of the jobs are at-most-once.
 * Catch-up jobs (fire_all, `maxRuns`) are created far in the future and later moved into the past
 * by the coordinator (catchUpOccurrences), so that one scanner pass catches all their runs up.
 */
import type { ChaosConfig } from './chaos-config.ts';
import { seededRandom } from './seeded-random.ts';

export type Delivery = 'at-least-once' | 'at-most-once';

export interface JobPlan {
  /** Unique, and the job's `name`: how stored jobs are matched to their plan. */
  name: string;
  /** `workflow-task`: a workflow's task item, its occurrences those of the workflow runs that start it (checks-workflows.ts). */
  kind: 'once' | 'recurring' | 'catch-up' | 'workflow-task';
  delivery: Delivery;
  /** Created through the API process (which is killed) or in the coordinator (bulk: the local API is too slow for all). */
  via?: 'api' | 'direct';
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
      via: 'direct',
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
      via: i % config.apiCreateEvery === 0 ? 'api' : 'direct',
      createAtMs: Math.floor((i * config.feedMs) / Math.max(1, config.oneTimeJobs)),
      dueAfterMs: random() < config.immediateShare ? 0 : Math.floor(random() * config.dueWithinMs),
    }),
  );
  // Fixed delivery: no draw from the seeded sequence, so the rest of the workload is as without them.
  const catchUp = Array.from(
    { length: config.catchUpJobs },
    (_, i): JobPlan => ({
      name: `chaos-catch-up-${i}`,
      kind: 'catch-up',
      delivery: 'at-least-once',
      via: 'api',
      createAtMs: 0,
      dueAfterMs: 0,
      everySeconds: config.catchUpEverySeconds,
      maxRuns: config.catchUpMaxRuns,
    }),
  );
  return [...recurring, ...catchUp, ...once];
}

/**
 * Where a catch-up job's schedule is moved to at `now` (`startAt`, also its nextFireAt, and `endAt`,
 * its last slot: fire_all keeps the latest `maxRuns` missed slots, so the schedule must have no
 * other), and the occurrences it then owes, all long past.
 */
export function catchUpOccurrences(plan: JobPlan, config: ChaosConfig, now: number) {
  const startAt = now - config.catchUpMissedMs;
  const every = (plan.everySeconds ?? 1) * 1000;
  const occurrences = Array.from({ length: plan.maxRuns ?? 1 }, (_, k) => startAt + k * every);
  return { startAt, endAt: occurrences.at(-1) ?? startAt, occurrences };
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
  if (plan.kind === 'catch-up') {
    // Nothing fires until the coordinator moves the schedule into the past.
    const schedule = {
      type: 'interval',
      everySeconds: plan.everySeconds,
      startAt: new Date(now + 86_400_000).toISOString(),
      maxRuns: plan.maxRuns,
    };
    return { body: { ...common, schedule, misfire: 'fire_all' }, occurrences: [] as number[] };
  }
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
