import type { Job } from '#core/model';
import type { DueJob, JobListQuery, JobRepository, Page, StoredJob } from '#core/ports';
import { type InFlightMarker, mayHoldInFlight } from '#core/schedule/overlap';

/** JobRepository in memory, with the same conditional semantics as the DynamoDB adapter. */
export class InMemoryJobRepository implements JobRepository {
  readonly items = new Map<string, StoredJob>();

  private key(tenantId: string, jobId: string) {
    return `${tenantId}/${jobId}`;
  }

  async create(job: Job): Promise<void> {
    const key = this.key(job.tenantId, job.jobId);
    if (this.items.has(key)) throw new Error('ConditionalCheckFailed');
    this.items.set(key, structuredClone(job));
  }

  async get(tenantId: string, jobId: string): Promise<StoredJob | undefined> {
    const job = this.items.get(this.key(tenantId, jobId));
    return job ? structuredClone(job) : undefined;
  }

  /** Same contract as DynamoDB: oldest first, and the cursor is the last job id read. */
  async listByTenant(tenantId: string, query: JobListQuery): Promise<Page<StoredJob>> {
    if (query.cursor !== undefined && !query.cursor.startsWith(`${tenantId}/`)) throw new Error('foreign cursor');
    const after = query.cursor?.slice(tenantId.length + 1) ?? '';
    const remaining = [...this.items.values()]
      .filter((job) => job.tenantId === tenantId && job.jobId > after)
      .sort((a, b) => (a.jobId < b.jobId ? -1 : 1));
    const matches = (job: StoredJob) =>
      (query.status === undefined || job.status === query.status) &&
      (query.type === undefined || job.schedule.type === query.type) &&
      (query.name === undefined || (job.name?.startsWith(query.name) ?? false));
    const items: StoredJob[] = [];
    let lastRead: string | undefined;
    for (const job of remaining) {
      if (items.length === query.limit) break;
      lastRead = job.jobId;
      if (matches(job)) items.push(structuredClone(job));
    }
    const more = lastRead !== undefined && remaining.at(-1)?.jobId !== lastRead;
    return more ? { items, cursor: `${tenantId}/${lastRead}` } : { items };
  }

  async replace(job: StoredJob, expectedVersion: number): Promise<boolean> {
    const key = this.key(job.tenantId, job.jobId);
    if (this.items.get(key)?.version !== expectedVersion) return false;
    this.items.set(key, structuredClone(job));
    return true;
  }

  async findDue(shard: string, until: number, limit: number): Promise<DueJob[]> {
    return [...this.items.values()]
      .filter((job) => job.dueShard === shard && job.nextFireAt !== undefined && job.nextFireAt <= until)
      .sort((a, b) => (a.nextFireAt ?? 0) - (b.nextFireAt ?? 0))
      .slice(0, limit)
      .map((job) => structuredClone(job) as DueJob);
  }

  async advance(
    job: Pick<Job, 'tenantId' | 'jobId' | 'version'>,
    change: { nextFireAt?: number; materialized: number; now: number },
  ): Promise<boolean> {
    const stored = this.items.get(this.key(job.tenantId, job.jobId));
    if (!stored || stored.version !== job.version) return false;
    stored.version++;
    stored.occurrenceCount += change.materialized;
    stored.updatedAt = change.now;
    if (change.nextFireAt === undefined) {
      delete stored.nextFireAt;
      delete stored.dueShard;
    } else stored.nextFireAt = change.nextFireAt;
    return true;
  }

  async quarantine(job: Pick<Job, 'tenantId' | 'jobId' | 'version'>, reason: string, now: number): Promise<boolean> {
    const stored = this.items.get(this.key(job.tenantId, job.jobId));
    if (!stored || stored.version !== job.version) return false;
    stored.quarantine = { reason, at: now };
    stored.version++;
    stored.updatedAt = now;
    delete stored.dueShard;
    return true;
  }

  async completeExhausted(tenantId: string, jobId: string, now: number): Promise<boolean> {
    const stored = this.items.get(this.key(tenantId, jobId));
    if (stored?.status !== 'ACTIVE' || stored.nextFireAt !== undefined || stored.schedule.type === 'once') {
      return false;
    }
    stored.status = 'COMPLETED';
    stored.version++;
    stored.updatedAt = now;
    return true;
  }

  async finish(
    tenantId: string,
    jobId: string,
    status: 'COMPLETED' | 'FAILED',
    now: number,
    occurrence: number,
  ): Promise<boolean> {
    const stored = this.items.get(this.key(tenantId, jobId));
    if (stored?.status !== 'ACTIVE' || stored.schedule.type !== 'once' || stored.schedule.at !== occurrence) {
      return false;
    }
    stored.status = status;
    stored.version++;
    stored.updatedAt = now;
    delete stored.nextFireAt;
    delete stored.dueShard;
    return true;
  }

  /** In-flight markers of `forbid` jobs, by job (kept beside the job: a StoredJob has no such field). */
  readonly inFlight = new Map<string, InFlightMarker>();

  async takeInFlight(
    tenantId: string,
    jobId: string,
    marker: InFlightMarker,
    now: number,
  ): Promise<{ taken: true } | { taken: false; holder?: InFlightMarker }> {
    const key = this.key(tenantId, jobId);
    if (!this.items.has(key)) return { taken: false };
    const holder = this.inFlight.get(key);
    if (!mayHoldInFlight(holder, marker.scheduledFor, now))
      return holder ? { taken: false, holder: { ...holder } } : { taken: false };
    this.inFlight.set(key, { ...marker });
    return { taken: true };
  }

  async releaseInFlight(tenantId: string, jobId: string, occurrence: number): Promise<boolean> {
    const key = this.key(tenantId, jobId);
    if (this.inFlight.get(key)?.scheduledFor !== occurrence) return false;
    return this.inFlight.delete(key);
  }
}
