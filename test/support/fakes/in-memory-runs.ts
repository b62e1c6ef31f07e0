import { shardName } from '#core/due-shard';
import type { Run, RunKey } from '#core/model';
import type { ClaimResult, Lease, Page, RunListQuery, RunOutcome, RunRepository } from '#core/ports';
import { DEFAULT_SWEEP_GRACE_MS, sweepAtOf } from '#core/runs/send-runs';

const keyOf = (k: RunKey) => `${k.tenantId}/${k.jobId}/${k.scheduledFor}/${k.attempt}`;

/** RunRepository in memory, with the same conditional semantics as the DynamoDB adapter. */
type Stored = Run & { sweepAt?: number };

export class InMemoryRunRepository implements RunRepository {
  readonly items = new Map<string, Stored>();

  constructor(private readonly sweepGraceMs = DEFAULT_SWEEP_GRACE_MS) {}

  all(): Stored[] {
    return [...this.items.values()];
  }

  async createIfAbsent(
    run: Run,
    options: { sweepAt?: number } = {},
  ): Promise<{ created: true } | { created: false; existing: Run }> {
    const existing = this.items.get(keyOf(run));
    if (existing) return { created: false, existing: structuredClone(existing) };
    this.items.set(keyOf(run), {
      ...structuredClone(run),
      ...(run.status === 'QUEUED' ? { sweepAt: options.sweepAt ?? sweepAtOf(run, this.sweepGraceMs) } : {}),
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

  /** The fake keeps its whole sweep index in the first shard, so a sweep of every shard finds each run once. */
  async findSweepable(shard: string, until: number, limit: number): Promise<Array<Run & { sweepAt: number }>> {
    if (shard !== shardName(0)) return [];
    return this.all()
      .filter((r): r is Run & { sweepAt: number } => r.sweepAt !== undefined && r.sweepAt <= until)
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }

  async rescheduleSweep(key: RunKey, from: number, to: number): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    if (!run || run.sweepAt !== from) return false;
    run.sweepAt = to;
    run.sweeps = (run.sweeps ?? 0) + 1;
    return true;
  }

  async listDeadLetters(tenantId: string, options: { limit: number }): Promise<Page<Run>> {
    const items = this.all()
      .filter((r) => r.tenantId === tenantId && r.status === 'DEAD_LETTERED')
      .sort((a, b) => (b.deadLetteredAt ?? 0) - (a.deadLetteredAt ?? 0));
    return { items: items.slice(0, options.limit) };
  }

  async claim(key: RunKey, lease: Lease): Promise<ClaimResult> {
    const run = this.items.get(keyOf(key));
    if (!run) return { claimed: false };
    const expired = run.status === 'RUNNING' && (run.leaseExpiresAt ?? 0) < lease.now;
    if (run.status !== 'QUEUED' && !expired) return { claimed: false, run: structuredClone(run) };
    if (expired && !lease.takeOverExpired) return { claimed: false, run: structuredClone(run), expired: true };
    if (expired) run.recoveries = (run.recoveries ?? 0) + 1;
    Object.assign(run, {
      status: 'RUNNING',
      leaseOwner: lease.owner,
      leaseExpiresAt: lease.expiresAt,
      claimedAt: lease.now,
    });
    delete run.sweepAt;
    return { claimed: true, run: structuredClone(run) };
  }

  async complete(key: RunKey, owner: string, outcome: RunOutcome): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    if (run?.status !== 'RUNNING' || run.leaseOwner !== owner) return false;
    Object.assign(run, outcome);
    delete run.sweepAt;
    return true;
  }

  async release(key: RunKey, owner: string, leaseExpiresAt: number): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    if (run?.status !== 'RUNNING' || run.leaseOwner !== owner || run.leaseExpiresAt !== leaseExpiresAt) return false;
    run.status = 'QUEUED';
    delete run.leaseOwner;
    delete run.leaseExpiresAt;
    delete run.claimedAt;
    return true;
  }

  async get(key: RunKey): Promise<Run | undefined> {
    const run = this.items.get(keyOf(key));
    return run ? structuredClone(run) : undefined;
  }

  async previous(key: RunKey): Promise<Run | undefined> {
    const earlier = this.all()
      .filter((r) => r.tenantId === key.tenantId && r.jobId === key.jobId && r.scheduledFor < key.scheduledFor)
      .sort((a, b) => b.scheduledFor - a.scheduledFor || b.attempt - a.attempt);
    return earlier[0] ? structuredClone(earlier[0]) : undefined;
  }

  /** Trigger Idempotency-Key bindings: `<tenant>/<job>/<key>` → bound time and expiry (epoch s). */
  readonly triggerKeys = new Map<string, { scheduledFor: number; expiresAt: number }>();

  async listByJob(tenantId: string, jobId: string, options: RunListQuery): Promise<Page<Run>> {
    const runs = this.all()
      .filter((r) => r.tenantId === tenantId && r.jobId === jobId)
      .filter((r) => options.status === undefined || r.status === options.status)
      .filter((r) => r.scheduledFor >= (options.from ?? 0) && r.scheduledFor <= (options.to ?? Number.MAX_SAFE_INTEGER))
      .sort((a, b) => b.scheduledFor - a.scheduledFor || b.attempt - a.attempt);
    const start = options.cursor ? Number(options.cursor) : 0;
    const items = runs.slice(start, start + options.limit).map((r) => structuredClone(r));
    const next = start + options.limit;
    return next < runs.length ? { items, cursor: String(next) } : { items };
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
      .sort((a, b) => b.scheduledFor - a.scheduledFor || b.attempt - a.attempt)
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }
}
