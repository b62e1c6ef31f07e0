import { deadLettersCursor, runsOfJobCursor } from '#adapters/dynamodb/listing-cursors';
import { runTableKey } from '#adapters/dynamodb/run-item';
import { shardName } from '#core/due-shard';
import { OutcomeRejectedError } from '#core/errors';
import type { Run, RunKey } from '#core/model';
import type { ClaimResult, Lease, Page, RunListQuery, RunOutcome, RunRepository } from '#core/ports';
import { DEFAULT_SWEEP_GRACE_MS, sweepAtOf } from '#core/runs/send-runs';
import { readPage } from './paged-reads.ts';

const keyOf = (k: RunKey) => `${k.tenantId}/${k.jobId}/${k.scheduledFor}/${k.attempt}`;

/** The adapter's key range for a job's runs: as listRunsOfJob, 13-digit occurrences up to this one. */
const LAST_INSTANT = 9_999_999_999_999;

/** Newest first: the runs table read with ScanIndexForward=false. */
const newestFirst = (a: Run, b: Run) => b.scheduledFor - a.scheduledFor || b.attempt - a.attempt;

/** A run as the adapter reads it: the TTL attribute is storage, not part of the run. */
function asRead(stored: Stored): Run {
  const { expiresAt: _ttl, ...run } = structuredClone(stored) as Stored & { expiresAt?: number };
  return run;
}

/** DynamoDB's item size limit, and what the document client's marshaller refuses to write. */
const MAX_ITEM_BYTES = 400 * 1024;

/** Throws OutcomeRejectedError where the adapter would: an item over 400 KB, a number no DynamoDB number holds. */
function refuseWhatDynamoDbRefuses(item: Record<string, unknown>): void {
  for (const value of Object.values(item)) {
    if (typeof value === 'number' && !(Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER)) {
      throw new OutcomeRejectedError(`Number ${value} cannot be stored without losing precision`);
    }
  }
  if (Buffer.byteLength(JSON.stringify(item)) > MAX_ITEM_BYTES) {
    throw new OutcomeRejectedError('Item size has exceeded the maximum allowed size');
  }
}

/**
 * RunRepository in memory, with the same conditional semantics as the DynamoDB adapter, held to it
 * by test/contract/repository-contract.ts.
 */
type Stored = Run & { sweepAt?: number };

export class InMemoryRunRepository implements RunRepository {
  readonly items = new Map<string, Stored>();

  constructor(private readonly sweepGraceMs = DEFAULT_SWEEP_GRACE_MS) {}

  all(): Stored[] {
    return [...this.items.values()];
  }

  async createIfAbsent(
    run: Run,
    options: { sweepAt?: number; inSweepIndex?: boolean } = {},
  ): Promise<{ created: true } | { created: false; existing: Run }> {
    const existing = this.items.get(keyOf(run));
    if (existing) return { created: false, existing: asRead(existing) };
    this.items.set(keyOf(run), {
      ...structuredClone(run),
      ...(run.status === 'QUEUED' && options.inSweepIndex !== false
        ? { sweepAt: options.sweepAt ?? sweepAtOf(run, this.sweepGraceMs) }
        : {}),
    });
    return { created: true };
  }

  async markLost(key: RunKey, expiredLeaseAt: number, now: number): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    if (run?.status !== 'RUNNING' || run.leaseExpiresAt !== expiredLeaseAt) return false;
    Object.assign(run, { status: 'FAILED', errorType: 'lost', error: 'lease expired', completedAt: now });
    delete run.sweepAt;
    return true;
  }

  async deadLetter(key: RunKey, reason: string, now: number): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    if (!run || (run.status !== 'QUEUED' && run.status !== 'RUNNING')) return false;
    Object.assign(run, {
      status: 'DEAD_LETTERED',
      errorType: 'dead_letter',
      error: reason,
      completedAt: now,
      deadLetteredAt: now,
    });
    delete run.sweepAt;
    return true;
  }

  /**
   * The fake keeps its whole sweep index in the first shard, so a sweep of every shard finds each
   * run once; earliest `sweepAt` first, as the index's sort key reads.
   */
  async findSweepable(shard: string, until: number, limit: number): Promise<Array<Run & { sweepAt: number }>> {
    if (shard !== shardName(0)) return [];
    return this.all()
      .filter((r): r is Run & { sweepAt: number } => r.sweepAt !== undefined && r.sweepAt <= until)
      .sort((a, b) => a.sweepAt - b.sweepAt)
      .slice(0, limit)
      .map((r) => asRead(r) as Run & { sweepAt: number });
  }

  async rescheduleSweep(key: RunKey, from: number, to: number): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    if (!run || run.sweepAt !== from) return false;
    run.sweepAt = to;
    run.sweeps = (run.sweeps ?? 0) + 1;
    return true;
  }

  async countSweep(key: RunKey): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    if (run?.status !== 'QUEUED') return false;
    run.sweeps = (run.sweeps ?? 0) + 1;
    return true;
  }

  /** As the adapter's Query of the dead-letter index: newest first, base64 LastEvaluatedKey cursors. */
  async listDeadLetters(tenantId: string, options: { limit: number; cursor?: string }): Promise<Page<Run>> {
    type IndexKey = { pk: string; sk: string; deadLetterTenant: string; deadLetteredAt: number };
    const indexKey = (run: Run): IndexKey => ({
      ...runTableKey(run),
      deadLetterTenant: run.tenantId,
      deadLetteredAt: run.deadLetteredAt ?? 0,
    });
    // Newest first; ties in the index's sort key in table-key order (any fixed order pages the same).
    const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const compare = (x: IndexKey, y: IndexKey) =>
      y.deadLetteredAt - x.deadLetteredAt || text(y.pk, x.pk) || text(y.sk, x.sk);
    const ordered = this.all()
      .filter((r) => r.tenantId === tenantId && r.status === 'DEAD_LETTERED' && r.deadLetteredAt !== undefined)
      .map(asRead)
      .sort((a, b) => compare(indexKey(a), indexKey(b)));
    return readPage(
      {
        ordered,
        keyOf: indexKey,
        isAfter: (run, start) => compare(indexKey(run), start as IndexKey) > 0,
        spec: deadLettersCursor(tenantId),
      },
      options.limit,
      options.cursor,
    );
  }

  async claim(key: RunKey, lease: Lease): Promise<ClaimResult> {
    const run = this.items.get(keyOf(key));
    if (!run) return { claimed: false };
    const expired = run.status === 'RUNNING' && (run.leaseExpiresAt ?? 0) < lease.now;
    if (run.status !== 'QUEUED' && !expired) return { claimed: false, run: asRead(run) };
    if (expired && !lease.takeOverExpired) return { claimed: false, run: asRead(run), expired: true };
    if (expired) run.recoveries = (run.recoveries ?? 0) + 1;
    Object.assign(run, {
      status: 'RUNNING',
      leaseOwner: lease.owner,
      leaseExpiresAt: lease.expiresAt,
      claimedAt: lease.now,
      ...(lease.async ? { async: lease.async } : {}),
      ...(lease.waitedMs === undefined ? {} : { waitedMs: lease.waitedMs }),
    });
    delete run.sweepAt;
    return { claimed: true, run: asRead(run) };
  }

  async complete(key: RunKey, owner: string, outcome: RunOutcome): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    refuseWhatDynamoDbRefuses({ ...run, ...outcome });
    if (run?.status !== 'RUNNING' || run.leaseOwner !== owner) return false;
    Object.assign(run, outcome);
    delete run.sweepAt;
    return true;
  }

  /** Back to QUEUED and, as the adapter does, back into the sweep index a grace from now. */
  async release(key: RunKey, owner: string, leaseExpiresAt: number): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    if (run?.status !== 'RUNNING' || run.leaseOwner !== owner || run.leaseExpiresAt !== leaseExpiresAt) return false;
    run.status = 'QUEUED';
    run.sweepAt = Date.now() + this.sweepGraceMs;
    delete run.leaseOwner;
    delete run.leaseExpiresAt;
    delete run.claimedAt;
    return true;
  }

  async get(key: RunKey): Promise<Run | undefined> {
    const run = this.items.get(keyOf(key));
    return run ? asRead(run) : undefined;
  }

  async previous(key: RunKey): Promise<Run | undefined> {
    const earlier = this.all()
      .filter((r) => r.tenantId === key.tenantId && r.jobId === key.jobId && r.scheduledFor < key.scheduledFor)
      .sort(newestFirst);
    return earlier[0] ? asRead(earlier[0]) : undefined;
  }

  /** Trigger Idempotency-Key bindings: `<tenant>/<job>/<key>` → bound time and expiry (epoch s). */
  readonly triggerKeys = new Map<string, { scheduledFor: number; expiresAt: number }>();

  /**
   * As the adapter's Query: newest first within [from, to], the status filtered per read, and a
   * base64 cursor of the last key read, so a page continues after it exactly (never by position:
   * runs created meanwhile must not shift a page).
   */
  async listByJob(tenantId: string, jobId: string, options: RunListQuery): Promise<Page<Run>> {
    const low = runTableKey({ tenantId, jobId, scheduledFor: options.from ?? 0, attempt: 0 });
    const high = runTableKey({ tenantId, jobId, scheduledFor: options.to ?? LAST_INSTANT, attempt: 999 });
    const ordered = this.all()
      .filter((r) => r.tenantId === tenantId && r.jobId === jobId)
      .filter((r) => r.scheduledFor >= (options.from ?? 0) && r.scheduledFor <= (options.to ?? LAST_INSTANT))
      .map(asRead)
      .sort(newestFirst);
    return readPage(
      {
        ordered,
        keyOf: (run) => runTableKey(run),
        isAfter: (run, start) => runTableKey(run).sk < String(start.sk),
        spec: runsOfJobCursor(low.pk, low.sk, high.sk),
        matches: (run) => options.status === undefined || run.status === options.status,
      },
      options.limit,
      options.cursor,
    );
  }

  async discardQueued(key: RunKey): Promise<boolean> {
    if (this.items.get(keyOf(key))?.status !== 'QUEUED') return false;
    return this.items.delete(keyOf(key));
  }

  async bindTriggerKey(
    job: Pick<RunKey, 'tenantId' | 'jobId'>,
    idempotencyKey: string,
    scheduledFor: number,
    now: number,
    expiresAt: number,
    replacing?: number,
  ): Promise<number> {
    const key = `${job.tenantId}/${job.jobId}/${idempotencyKey}`;
    const existing = this.triggerKeys.get(key);
    const live = existing && existing.expiresAt >= Math.floor(now / 1000);
    if (live && (replacing === undefined || existing.scheduledFor !== replacing)) return existing.scheduledFor;
    this.triggerKeys.set(key, { scheduledFor, expiresAt });
    return scheduledFor;
  }

  async latestRuns(job: Pick<RunKey, 'tenantId' | 'jobId'>, until: number, limit: number): Promise<Run[]> {
    return this.all()
      .filter((r) => r.tenantId === job.tenantId && r.jobId === job.jobId && r.scheduledFor <= until)
      .sort(newestFirst)
      .slice(0, limit)
      .map(asRead);
  }
}
