/**
 * Jobs by status without reading the jobs: one counter item per tenant, moved with atomic ADDs
 * where a job's status changes (create, pause, resume, cancel, finish). Each move follows a
 * conditional write that succeeds once, so a retried request or a redelivered stream record does
 * not move the counters again; a process that dies between the status write and the ADD leaves
 * them one off, which is why the stats show them as counters, not as a census.
 *
 * No all-tenants item: it doubled the write of every status change for a view only the operator
 * asks for. The all-tenants read sums the tenants' items instead, from the tenant list (one Scan of
 * the tenants table, which also brings each tenant's admitted share; cheaper than finding the
 * counters among the metrics table's buckets) and one BatchGetItem per 100 tenants: paid per admin
 * request, which is rare.
 *
 * A job created over the API is counted `ACTIVE` by its admission, in the same write that takes
 * its create token (`admittedJobs` on the tenant item, job-admissions.ts), not by a write here:
 * a tenant's `ACTIVE` is its item's plus that share, and the item's alone may fall below zero.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ALL_TENANTS, type JobStatusCounts, type JobStatusDeltas, shiftDeltas } from '#core/metrics/ports';
import { JOB_STATUSES, type JobStatus } from '#core/model';
import { batchGetItems, KEYS_PER_BATCH_GET } from './batch-get.ts';
import { jobCountsKey } from './metrics-keys.ts';

type Counts = Record<JobStatus, number>;

/** The jobs counted `ACTIVE` by their admission (admitted-jobs.ts): of one tenant, or every tenant's. */
export interface AdmittedJobs {
  of(tenantId: string): Promise<number>;
  /** Every tenant's id with its share (0 for none): the all-tenants read sums the tenants it names. */
  all(): Promise<ReadonlyMap<string, number>>;
}

export class DynamoJobStatusCounts implements JobStatusCounts {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** The tenants and their shares of `ACTIVE` counted at admission (none: the write side's). */
    private readonly admitted: AdmittedJobs = { of: async () => 0, all: async () => new Map() },
  ) {}

  async shift(tenantId: string, from: JobStatus | undefined, to: JobStatus): Promise<void> {
    await this.add(tenantId, shiftDeltas(from, to));
  }

  async add(tenantId: string, deltas: JobStatusDeltas): Promise<void> {
    const moves = Object.entries(deltas).filter(([, delta]) => delta !== 0);
    if (moves.length === 0) return;
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: jobCountsKey(tenantId),
        UpdateExpression: `ADD ${moves.map((_, i) => `#s${i} :d${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(moves.map(([status], i) => [`#s${i}`, status])),
        ExpressionAttributeValues: Object.fromEntries(moves.map(([, delta], i) => [`:d${i}`, delta])),
      }),
    );
  }

  async read(scope: string): Promise<Partial<Record<JobStatus, number>>> {
    if (scope === ALL_TENANTS) return this.readAllTenants();
    const [{ Item = {} }, admitted] = await Promise.all([
      this.client.send(new GetCommand({ TableName: this.tableName, Key: jobCountsKey(scope) })),
      this.admitted.of(scope),
    ]);
    const counts = countsOf(Item);
    return { ...counts, ACTIVE: counts.ACTIVE + admitted };
  }

  private async readAllTenants(): Promise<Counts> {
    const total = countsOf({});
    const tenants = await this.admitted.all();
    const ids = [...tenants.keys()];
    for (let i = 0; i < ids.length; i += KEYS_PER_BATCH_GET) {
      for (const item of await this.batchGet(ids.slice(i, i + KEYS_PER_BATCH_GET))) {
        const counts = countsOf(item);
        for (const status of JOB_STATUSES) total[status] += counts[status];
      }
    }
    for (const share of tenants.values()) total.ACTIVE += share;
    return total;
  }

  /** The counter items of these tenants (missing ones: none yet), unprocessed keys asked again. */
  private batchGet(tenantIds: string[]): Promise<Record<string, unknown>[]> {
    return batchGetItems(this.client, this.tableName, tenantIds.map(jobCountsKey));
  }
}

function countsOf(item: Record<string, unknown>): Counts {
  return Object.fromEntries(
    JOB_STATUSES.map((status) => [status, typeof item[status] === 'number' ? item[status] : 0]),
  ) as Counts;
}
