import { jobItemOf, jobOfItem } from '#adapters/dynamodb/job-item';
import { jobsCursor } from '#adapters/dynamodb/listing-cursors';
import { JOBS_TABLE } from '#adapters/dynamodb/table-definitions';
import { definitionVersionOf } from '#core/definition-version';
import { JobExistsError } from '#core/errors';
import type { Job } from '#core/model';
import type { DueJob, JobListQuery, JobRepository, Page, StoredJob } from '#core/ports';
import { type InFlightMarker, mayHoldInFlight } from '#core/schedule/overlap';
import { readPage } from './paged-reads.ts';

const { dueIndex } = JOBS_TABLE;

/**
 * What the due-index holds of a job: its keys, the index keys and the projected attributes
 * (table-definitions.ts), of the item as the adapter stores it (job-item.ts), read back as a job.
 */
function dueEntryOf(job: StoredJob): DueJob {
  const item = jobItemOf(job);
  const entry: Record<string, unknown> = {};
  for (const name of [
    JOBS_TABLE.partitionKey,
    JOBS_TABLE.sortKey,
    dueIndex.partitionKey,
    dueIndex.sortKey,
    ...dueIndex.projectedAttributes,
  ]) {
    if (item[name] !== undefined) entry[name] = structuredClone(item[name]);
  }
  return jobOfItem<DueJob>(entry);
}

/** As the adapter's system writes: a job stored before definition versions keeps the one it showed. */
function keepDefinition(stored: StoredJob): void {
  stored.definitionVersion = definitionVersionOf(stored);
}

/** A job as read: the DynamoDB adapter's item carries the in-flight marker as the attribute `inFlight`. */
type ReadJob = StoredJob & { inFlight?: InFlightMarker };

/**
 * JobRepository in memory, with the same conditional semantics as the DynamoDB adapter, held to it
 * by test/contract/repository-contract.ts.
 */
export class InMemoryJobRepository implements JobRepository {
  readonly items = new Map<string, StoredJob>();

  private key(tenantId: string, jobId: string) {
    return `${tenantId}/${jobId}`;
  }

  async create(job: Job): Promise<void> {
    const key = this.key(job.tenantId, job.jobId);
    if (this.items.has(key)) throw new JobExistsError(job.jobId);
    this.items.set(key, structuredClone(job));
  }

  /** The job with its in-flight marker, as the adapter reads the item. */
  async get(tenantId: string, jobId: string): Promise<StoredJob | undefined> {
    const key = this.key(tenantId, jobId);
    const job = this.items.get(key);
    if (!job) return undefined;
    const marker = this.inFlight.get(key);
    return structuredClone(marker ? { ...job, inFlight: marker } : job);
  }

  /** As the adapter's Query: oldest first, filters applied per read, base64 LastEvaluatedKey cursors. */
  async listByTenant(tenantId: string, query: JobListQuery): Promise<Page<StoredJob>> {
    const ordered = [...this.items.values()]
      .filter((job) => job.tenantId === tenantId)
      .sort((a, b) => (a.jobId < b.jobId ? -1 : 1));
    return readPage(
      {
        ordered,
        keyOf: (job) => ({ tenantId: job.tenantId, jobId: job.jobId }),
        isAfter: (job, start) => job.jobId > String(start.jobId),
        spec: jobsCursor(tenantId),
        // Workflow heads and task items share the table (core/workflows/stored.ts): never listed as jobs.
        matches: (job) =>
          !('kind' in job) &&
          (query.status === undefined || job.status === query.status) &&
          (query.type === undefined || job.schedule.type === query.type) &&
          (query.name === undefined || (job.name?.startsWith(query.name) ?? false)),
      },
      query.limit,
      query.cursor,
    );
  }

  /**
   * As the adapter's conditional put: at the expected version and with the in-flight marker as it
   * was read (an executor moves the marker without bumping the version), else false.
   */
  async replace(job: StoredJob, expectedVersion: number): Promise<boolean> {
    const key = this.key(job.tenantId, job.jobId);
    const { inFlight: readMarker, ...stored } = job as ReadJob;
    const marker = this.inFlight.get(key);
    if (this.items.get(key)?.version !== expectedVersion) return false;
    const markerUnchanged = readMarker
      ? marker?.runId === readMarker.runId && marker.until === readMarker.until
      : marker === undefined;
    if (!markerUnchanged) return false;
    this.items.set(key, structuredClone(stored));
    if (readMarker) this.inFlight.set(key, { ...readMarker });
    return true;
  }

  async findDue(shard: string, until: number, limit: number): Promise<DueJob[]> {
    return [...this.items.values()]
      .filter((job) => job.dueShard === shard && job.nextFireAt !== undefined && job.nextFireAt <= until)
      .sort((a, b) => (a.nextFireAt ?? 0) - (b.nextFireAt ?? 0))
      .slice(0, limit)
      .map((job) => dueEntryOf(job));
  }

  async advance(
    job: Pick<Job, 'tenantId' | 'jobId' | 'version'>,
    change: { nextFireAt?: number; materialized: number; now: number },
  ): Promise<boolean> {
    const stored = this.items.get(this.key(job.tenantId, job.jobId));
    if (!stored || stored.version !== job.version) return false;
    keepDefinition(stored);
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
    keepDefinition(stored);
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
    keepDefinition(stored);
    stored.version++;
    stored.updatedAt = now;
    return true;
  }

  async finish(
    tenantId: string,
    jobId: string,
    status: 'COMPLETED' | 'FAILED' | 'CANCELLED',
    now: number,
    occurrence: number,
  ): Promise<boolean> {
    const stored = this.items.get(this.key(tenantId, jobId));
    if (stored?.status !== 'ACTIVE' || stored.schedule.type !== 'once' || stored.schedule.at !== occurrence) {
      return false;
    }
    stored.status = status;
    keepDefinition(stored);
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
