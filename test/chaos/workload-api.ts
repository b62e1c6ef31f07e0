/**
 * The workload's calls to the API process, which the chaos run SIGKILLs, mid-create among others.
 * A client of Chronos has to live with that: a refused connection reached nothing and is simply
 * tried again; a request that got no answer (the socket closed under it) or a 5xx may or may not
 * have written the job. So every create carries an `Idempotency-Key` (one per planned job) and is
 * sent again, same key, same body, until it is answered: a job the killed API had written comes
 * back as `201` with `Idempotent-Replayed: true` (recorded as `201 replayed`), never as a second
 * job. Every create records its tries; one that never succeeded is kept with its error, not dropped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosConfig } from './chaos-config.ts';
import type { ApiCreate, PoisonCase } from './evidence.ts';
import { type CreatedJob, jobBody } from './workload.ts';

export interface ApiClient {
  url: string;
  token: string;
}

/**
 * Creates in flight at once: one local API process on a loaded two-core machine answers a burst of
 * dozens with timeouts, which would turn the run into a test of the machine, not of the kills.
 */
const MAX_CREATES_IN_FLIGHT = 4;
let createsInFlight = 0;
const waiting: Array<() => void> = [];
async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (createsInFlight >= MAX_CREATES_IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
  createsInFlight++;
  try {
    return await work();
  } finally {
    createsInFlight--;
    waiting.shift()?.();
  }
}

/**
 * How long one create keeps trying. The API restarts in about a second, but one restarted during
 * the SQS outage cannot start until SQS is back (it provisions the queues), which on a loaded
 * machine has taken 30 s.
 */
const CREATE_PATIENCE_MS = 120_000;
const RETRY_PAUSE_MS = 250;

export type Answer = { status: number; body: unknown; replayed: boolean } | { error: string; nothingSent: boolean };

/** One request; never throws: a failure comes back as `error`, with whether the request surely reached nothing. */
export async function call(
  api: ApiClient,
  method: string,
  path: string,
  body?: unknown,
  idempotencyKey?: string,
): Promise<Answer> {
  try {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${api.token}`,
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: response.status, body: parsed, replayed: response.headers.get('idempotent-replayed') === 'true' };
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
    return { error: code, nothingSent: code === 'ECONNREFUSED' };
  }
}

/** Calls until the API answers (a refused or dropped connection is the API restarting), or until `deadline`. */
async function answered(api: ApiClient, method: string, path: string, deadline: number, body?: unknown) {
  for (;;) {
    const answer = await call(api, method, path, body);
    if ('status' in answer || Date.now() > deadline) return answer;
    await sleep(RETRY_PAUSE_MS);
  }
}

/**
 * Creates `plan` through the API, surviving API kills as described above; sets its jobId and
 * occurrences, or its createError. Returns the record of its tries.
 */
export function createThroughApi(
  api: ApiClient,
  plan: CreatedJob,
  config: ChaosConfig,
  targetUrl: string,
): Promise<ApiCreate> {
  return slot(() => tryCreating(api, plan, config, targetUrl));
}

async function tryCreating(
  api: ApiClient,
  plan: CreatedJob,
  config: ChaosConfig,
  targetUrl: string,
): Promise<ApiCreate> {
  const record: ApiCreate = { name: plan.name, tries: [] };
  const deadline = Date.now() + CREATE_PATIENCE_MS;
  // One body and one key for every try: a retry is the same request, or the API answers 422.
  const { body, occurrences } = jobBody(plan, config, targetUrl, Date.now());
  const key = `chaos-create:${plan.name}`;
  for (;;) {
    const answer = await call(api, 'POST', '/v1/jobs', body, key);
    if ('status' in answer) {
      record.tries.push(answer.replayed ? `${answer.status} replayed` : String(answer.status));
      if (answer.status === 201) {
        plan.jobId = (answer.body as { jobId: string }).jobId;
        plan.occurrences = occurrences;
        return record;
      }
      // Refused (4xx but 429): trying again cannot help (a 422 would mean the key saw another body).
      if (answer.status < 500 && answer.status !== 429) {
        plan.createError = `${answer.status} ${JSON.stringify(answer.body)}`;
        return record;
      }
    } else record.tries.push(answer.error);
    if (Date.now() > deadline) {
      plan.createError = `gave up after ${record.tries.length} tries: ${record.tries.join(', ')}`;
      return record;
    }
    await sleep(RETRY_PAUSE_MS);
  }
}

/** The one-time job of the poison case, due `dueAfterMs` after it is created. */
export function poisonPlan(dueAfterMs: number): CreatedJob {
  return {
    name: 'chaos-poison-0',
    kind: 'once',
    delivery: 'at-least-once',
    via: 'direct',
    createAtMs: 0,
    dueAfterMs,
    occurrences: [],
  };
}

/**
 * The poison case after its job is created: waits (until `deadline`) for its first run to end
 * DEAD_LETTERED, then re-drives it with POST /v1/runs/{runId}/retry (again after a dropped
 * connection: a second answer of 409 "already re-driven" names the same new attempt).
 */
export async function redrivePoison(api: ApiClient, poison: PoisonCase, deadline: number): Promise<void> {
  for (;;) {
    const answer = await answered(api, 'GET', `/v1/jobs/${poison.jobId}/runs`, deadline);
    const items = 'status' in answer && answer.status === 200 ? (answer.body as { items: RunItem[] }).items : [];
    const first = items.find((run) => run.runId === poison.runId);
    if (first?.status === 'DEAD_LETTERED') {
      poison.deadLetteredSeenAt = Date.now();
      break;
    }
    if (Date.now() > deadline) return;
    await sleep(1_000);
  }
  for (;;) {
    const answer = await call(api, 'POST', `/v1/runs/${encodeURIComponent(poison.runId)}/retry`);
    if ('status' in answer) {
      poison.redriveAnswers.push(answer.status);
      if (answer.status === 202) poison.redrivenRunId = (answer.body as RunItem).runId;
      if (answer.status < 500 && answer.status !== 429) return;
    } else poison.redriveAnswers.push(answer.error);
    if (Date.now() > deadline) return;
    await sleep(RETRY_PAUSE_MS);
  }
}

type RunItem = { runId: string; status: string; attempt: number };
