import type { Run, RunKey } from '#core/model';
import type { Page, RunOutcome, RunRepository } from '#core/ports';

const keyOf = (k: RunKey) => `${k.tenantId}/${k.jobId}/${k.scheduledFor}/${k.attempt}`;

/** RunRepository in memory, with the same conditional semantics as the DynamoDB adapter. */
export class InMemoryRunRepository implements RunRepository {
  readonly items = new Map<string, Run>();

  all(): Run[] {
    return [...this.items.values()];
  }

  async createIfAbsent(run: Run): Promise<{ created: true } | { created: false; existing: Run }> {
    const existing = this.items.get(keyOf(run));
    if (existing) return { created: false, existing: structuredClone(existing) };
    this.items.set(keyOf(run), structuredClone(run));
    return { created: true };
  }

  async claim(key: RunKey, lease: { owner: string; expiresAt: number; now: number }) {
    const run = this.items.get(keyOf(key));
    if (!run) return { claimed: false as const };
    const expired = run.status === 'RUNNING' && (run.leaseExpiresAt ?? 0) < lease.now;
    if (run.status !== 'QUEUED' && !expired) return { claimed: false as const, run: structuredClone(run) };
    if (expired) run.recoveries = (run.recoveries ?? 0) + 1;
    Object.assign(run, {
      status: 'RUNNING',
      leaseOwner: lease.owner,
      leaseExpiresAt: lease.expiresAt,
      claimedAt: lease.now,
    });
    return { claimed: true as const, run: structuredClone(run) };
  }

  async complete(key: RunKey, owner: string, outcome: RunOutcome): Promise<boolean> {
    const run = this.items.get(keyOf(key));
    if (!run || run.status !== 'RUNNING' || run.leaseOwner !== owner) return false;
    Object.assign(run, outcome);
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

  async listByJob(tenantId: string, jobId: string, options: { limit: number; cursor?: string }): Promise<Page<Run>> {
    const runs = this.all()
      .filter((r) => r.tenantId === tenantId && r.jobId === jobId)
      .sort((a, b) => b.scheduledFor - a.scheduledFor || b.attempt - a.attempt);
    const start = options.cursor ? Number(options.cursor) : 0;
    const items = runs.slice(start, start + options.limit);
    const next = start + options.limit;
    return next < runs.length ? { items, cursor: String(next) } : { items };
  }
}
