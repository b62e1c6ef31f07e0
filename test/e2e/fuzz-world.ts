/**
 * What the model-based fuzzer knows of the real system: the jobs, runs and cursors earlier 2xx
 * answers revealed (so later commands reuse real ids instead of stopping at the 404 lookup), what
 * it predicts of each job, and the checks every answer goes through — never a 5xx, a 4xx in the
 * error shape and without a write, a 2xx in its schema (fuzz-shapes.ts).
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import type { LocalChronos } from '#local/chronos-local';
import { type Shape, shapeProblems } from './fuzz-shapes.ts';

export type Listing = 'jobs' | 'runs' | 'deadLetters';

export interface KnownJob {
  jobId: string;
  status: string;
  version: number;
  type: string;
  /**
   * Nothing but this test's own requests can change the job: its next occurrence is far off, it
   * has never had one near, and its target is the test's server (so no run of it is ever retried).
   * Only for such jobs are state transitions predicted and 4xx answers checked for writes.
   */
  stable: boolean;
}

export interface Answer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: a 2xx body is checked against its schema (fuzz-shapes.ts) before it is read
  body: any;
  headers: Headers;
  /** The request and the answer, for failure messages. */
  what: string;
}

export interface Real {
  chronos: LocalChronos;
  documents: DynamoDBDocument;
  /** The test's HTTP target (`${baseUrl}/…`). */
  baseUrl: string;
  /** A second tenant's token: every id of the first must be a 404 to it. */
  otherToken: string;
}

const TEN_MINUTES = 600_000;
const TERMINAL = ['CANCELLED', 'COMPLETED', 'FAILED'];

export class World {
  readonly jobs = new Map<string, KnownJob>();
  readonly runIds: string[] = [];
  readonly deadRunIds: string[] = [];
  /** Callback tokens of async runs planted for the callback routes (fuzz.test.ts), with their run ids. */
  readonly callbackTokens: Array<{ runId: string; token: string }> = [];
  readonly cursors: Record<Listing, string[]> = { jobs: [], runs: [], deadLetters: [] };
  /** The job each runs cursor came from. */
  readonly runsCursorJob = new Map<string, string>();
  /** Idempotency-Key → run id, per job. */
  readonly idempotency = new Map<string, Map<string, string>>();
  /** Jobs answered 201 by a create. */
  readonly created = new Set<string>();
  /** "METHOD /route status" → count: the proof that the commands reach past validation. */
  readonly answers = new Map<string, number>();

  constructor(readonly real: Real) {}

  pickJob(pick: number): KnownJob | undefined {
    const all = [...this.jobs.values()];
    return all.length === 0 ? undefined : all[pick % all.length];
  }

  /** Learns a job from a 2xx answer: its status, version, and whether it can change by itself from now on. */
  learnJob(view: {
    jobId: string;
    status: string;
    version: number;
    nextFireAt: string | null;
    schedule: { type: string };
    target: { url: string };
  }) {
    const before = this.jobs.get(view.jobId);
    const next = view.nextFireAt === null ? undefined : Date.parse(view.nextFireAt);
    const farOrNone = next === undefined ? view.status !== 'ACTIVE' : next > Date.now() + TEN_MINUTES;
    const calm =
      TERMINAL.includes(view.status) ||
      (farOrNone && view.target.url.startsWith(`${this.real.baseUrl}/fuzz`) && (before?.stable ?? true));
    this.jobs.set(view.jobId, {
      jobId: view.jobId,
      status: view.status,
      version: view.version,
      type: view.schedule.type,
      stable: calm,
    });
  }

  learnRun(runId: string) {
    if (!this.runIds.includes(runId)) this.runIds.push(runId);
  }

  learnCursor(listing: Listing, cursor: string | null, jobId?: string) {
    if (cursor === null || this.cursors[listing].includes(cursor)) return;
    this.cursors[listing].push(cursor);
    if (jobId !== undefined) this.runsCursorJob.set(cursor, jobId);
  }

  count(method: string, route: string, status: number) {
    const key = `${method} ${route} ${status}`;
    this.answers.set(key, (this.answers.get(key) ?? 0) + 1);
  }

  /** Sends a request and checks what every answer must be; `shape` is the schema of its 2xx. */
  async call(
    method: string,
    path: string,
    options: {
      route: string;
      shape?: Shape;
      body?: unknown;
      rawBody?: string;
      headers?: Record<string, string>;
      token?: string | null;
    },
  ): Promise<Answer> {
    const { chronos } = this.real;
    const token = options.token === undefined ? chronos.token : options.token;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...options.headers,
    };
    const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const response = await fetch(`${chronos.apiUrl}${path}`, {
      method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
    });
    const text = await response.text();
    const what = `${method} ${path} ${JSON.stringify(options.headers ?? {})} ${String(payload).slice(0, 600)} → ${response.status} ${text.slice(0, 600)}`;
    this.count(method, options.route, response.status);
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new Error(`not JSON: ${what}`);
    }
    if (response.status >= 500) throw new Error(`a client caused a 5xx: ${what}`);
    if (response.status >= 400) {
      const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } })?.error;
      if (typeof error?.code !== 'string' || typeof error.message !== 'string' || !Array.isArray(error.details)) {
        throw new Error(`a 4xx outside the error shape: ${what}`);
      }
    } else if (options.shape !== undefined) {
      const problems = shapeProblems(options.shape, body);
      if (problems.length > 0)
        throw new Error(`a ${response.status} outside the ${options.shape} schema (${problems.join('; ')}): ${what}`);
    }
    return { status: response.status, text, body, headers: response.headers, what };
  }

  /** What a rejected request must leave as it was: the job's version and status, the keys of its runs. */
  async footprint(jobId: string): Promise<string> {
    const { chronos, documents } = this.real;
    const job = await documents.get({ TableName: chronos.tables.jobs, Key: { tenantId: chronos.tenantId, jobId } });
    const runs = await documents.query({
      TableName: chronos.tables.runs,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `${chronos.tenantId}#${jobId}` },
      ProjectionExpression: 'sk',
    });
    const keys = (runs.Items ?? []).map((item) => String(item.sk)).sort();
    return JSON.stringify({ version: job.Item?.version, status: job.Item?.status, runs: keys });
  }

  /** How many jobs the tenant has in the table (a rejected create must not change it); workflow items are left out. */
  async jobCount(): Promise<number> {
    const { chronos, documents } = this.real;
    let total = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documents.query({
        TableName: chronos.tables.jobs,
        KeyConditionExpression: 'tenantId = :t',
        // Workflow heads and task items share the table; they are no jobs (fuzz-workflows.ts).
        FilterExpression: 'attribute_not_exists(kind)',
        ExpressionAttributeValues: { ':t': chronos.tenantId },
        Select: 'COUNT',
        ...(start ? { ExclusiveStartKey: start } : {}),
      });
      total += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return total;
  }
}
