/** Jobs in DynamoDB: one item per job, keyed by tenant, with the sparse sharded due-index. */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { JobExistsError } from '#core/errors';
import type { Job } from '#core/model';
import type { DueJob, JobListQuery, JobRepository, Page, StoredJob } from '#core/ports';
import type { InFlightMarker } from '#core/schedule/overlap';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { decodeCursor } from './cursor.ts';
import { readDueItems } from './due-items.ts';
import { queryFilteredPage } from './filtered-query.ts';
import { jobItemOf, jobOfItem } from './job-item.ts';
import { jobsCursor } from './listing-cursors.ts';
import { JOBS_TABLE } from './table-definitions.ts';

const { partitionKey: PK, sortKey: SK, dueIndex } = JOBS_TABLE;
/** The job attribute holding the in-flight marker. */
const IN_FLIGHT = 'inFlight';
/**
 * The system's writes (advance, quarantine, finish) bump only the internal `version`; this action
 * stores the definition version of a job written before it existed as it stood (the internal
 * version before this write, #core/definition-version), so the tag a client read still matches.
 */
const KEEP_DEFINITION = '#definition = if_not_exists(#definition, #version)';
const DEFINITION = { '#definition': 'definitionVersion', '#version': 'version' };

export class DynamoJobRepository implements JobRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(job: Job): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: jobItemOf(job),
          ConditionExpression: `attribute_not_exists(${SK})`,
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new JobExistsError(job.jobId);
      throw error;
    }
  }

  async get(tenantId: string, jobId: string): Promise<StoredJob | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { [PK]: tenantId, [SK]: jobId }, ConsistentRead: true }),
    );
    return Item === undefined ? undefined : jobOfItem<StoredJob>(Item);
  }

  /**
   * One Query on the tenant's partition, in job-id (= creation) order, with status/type/name as a
   * FilterExpression. Filtering after the Query is acceptable here: a tenant's jobs are one
   * partition read in key order, the filters are coarse (a handful of statuses and schedule
   * types), the listing is an occasional management call, and each page's reads are bounded
   * (queryFilteredPage) with a cursor to continue. An index per filter would instead add a write
   * to every job update, and the scanner updates recurring jobs on every pass.
   */
  async listByTenant(tenantId: string, query: JobListQuery): Promise<Page<StoredJob>> {
    const start = decodeCursor(query.cursor, jobsCursor(tenantId));
    // Workflow heads and task items are jobs-table items too (core/workflows/stored.ts), never jobs to list.
    const filters: string[] = ['attribute_not_exists(#kind)'];
    const names: Record<string, string> = { '#tenant': PK, '#kind': 'kind' };
    const values: Record<string, unknown> = { ':tenant': tenantId };
    if (query.status !== undefined) {
      filters.push('#status = :status');
      names['#status'] = 'status';
      values[':status'] = query.status;
    }
    if (query.type !== undefined) {
      filters.push('#schedule.#type = :type');
      names['#schedule'] = 'schedule';
      names['#type'] = 'type';
      values[':type'] = query.type;
    }
    if (query.name !== undefined) {
      filters.push('begins_with(#name, :name)');
      names['#name'] = 'name';
      values[':name'] = query.name;
    }
    const page = await queryFilteredPage<Record<string, unknown>>(
      this.client,
      {
        TableName: this.tableName,
        KeyConditionExpression: '#tenant = :tenant',
        FilterExpression: filters.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ConsistentRead: true,
      },
      query.limit,
      start,
    );
    return { ...page, items: page.items.map((item) => jobOfItem<StoredJob>(item)) };
  }

  async replace(job: StoredJob, expectedVersion: number): Promise<boolean> {
    // The executor moves the in-flight marker without bumping the version, so a whole-item write
    // is also conditioned on the marker being as it was read: otherwise it could put back a marker
    // just released (skipping occurrences until it expires) or drop one just taken (an overlap).
    const marker = (job as StoredJob & { [IN_FLIGHT]?: InFlightMarker })[IN_FLIGHT];
    const markerUnchanged = marker
      ? '#inFlight.#runId = :runId AND #inFlight.#until = :until'
      : 'attribute_not_exists(#inFlight)';
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: jobItemOf(job),
          ConditionExpression: `attribute_exists(#sk) AND #version = :expected AND ${markerUnchanged}`,
          ExpressionAttributeNames: {
            '#sk': SK,
            '#version': 'version',
            '#inFlight': IN_FLIGHT,
            ...(marker ? { '#runId': 'runId', '#until': 'until' } : {}),
          },
          ExpressionAttributeValues: {
            ':expected': expectedVersion,
            ...(marker ? { ':runId': marker.runId, ':until': marker.until } : {}),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async findDue(shard: string, until: number, limit: number): Promise<DueJob[]> {
    return readDueItems(this.client, this.tableName, shard, until, limit);
  }

  async advance(
    job: Pick<Job, 'tenantId' | 'jobId' | 'version'>,
    change: { nextFireAt?: number; materialized: number; now: number },
  ): Promise<boolean> {
    const values: Record<string, unknown> = {
      ':expected': job.version,
      ':one': 1,
      ':materialized': change.materialized,
      ':now': change.now,
    };
    let update = `SET ${KEEP_DEFINITION}, #version = #version + :one, #count = #count + :materialized, #updatedAt = :now`;
    if (change.nextFireAt === undefined) update += ` REMOVE #next, #shard`;
    else {
      update += ', #next = :next';
      values[':next'] = change.nextFireAt;
    }
    return this.conditionalUpdate({
      Key: { [PK]: job.tenantId, [SK]: job.jobId },
      UpdateExpression: update,
      ConditionExpression: '#version = :expected',
      ExpressionAttributeNames: {
        ...DEFINITION,
        '#count': 'occurrenceCount',
        '#updatedAt': 'updatedAt',
        '#next': dueIndex.sortKey,
        ...(change.nextFireAt === undefined ? { '#shard': dueIndex.partitionKey } : {}),
      },
      ExpressionAttributeValues: values,
    });
  }

  async quarantine(job: Pick<Job, 'tenantId' | 'jobId' | 'version'>, reason: string, now: number): Promise<boolean> {
    // Only the index's partition key goes: the sparse index drops the job, `nextFireAt` stays to say where it stopped.
    // The version is set, not incremented: a job quarantined because the store refuses its data
    // (a version that is not a number) must still be quarantinable, and comes out with a sound one.
    // So is a missing definition version: the version this write started from, or 1 for an unsound one.
    const readable = Number.isSafeInteger(Number(job.version));
    const sound = readable ? Number(job.version) : 0;
    return this.conditionalUpdate({
      Key: { [PK]: job.tenantId, [SK]: job.jobId },
      UpdateExpression:
        'SET #quarantine = :quarantine, #definition = if_not_exists(#definition, :shown), #version = :next, #updatedAt = :now REMOVE #shard',
      ConditionExpression: '#version = :expected',
      ExpressionAttributeNames: {
        '#quarantine': 'quarantine',
        ...DEFINITION,
        '#updatedAt': 'updatedAt',
        '#shard': dueIndex.partitionKey,
      },
      ExpressionAttributeValues: {
        ':quarantine': { reason, at: now },
        ':shown': readable ? sound : 1,
        ':next': sound + 1,
        ':now': now,
        ':expected': job.version,
      },
    });
  }

  async finish(
    tenantId: string,
    jobId: string,
    status: 'COMPLETED' | 'FAILED' | 'CANCELLED',
    now: number,
    occurrence: number,
  ): Promise<boolean> {
    return this.conditionalUpdate({
      Key: { [PK]: tenantId, [SK]: jobId },
      UpdateExpression: `SET #status = :status, ${KEEP_DEFINITION}, #version = #version + :one, #updatedAt = :now REMOVE #next, #shard`,
      // The occurrence too: a run of the `at` the job was rescheduled away from must not end it.
      ConditionExpression: '#status = :active AND #schedule.#type = :once AND #schedule.#at = :at',
      ExpressionAttributeNames: {
        '#status': 'status',
        ...DEFINITION,
        '#updatedAt': 'updatedAt',
        '#next': dueIndex.sortKey,
        '#shard': dueIndex.partitionKey,
        '#schedule': 'schedule',
        '#type': 'type',
        '#at': 'at',
      },
      ExpressionAttributeValues: {
        ':status': status,
        ':one': 1,
        ':now': now,
        ':active': 'ACTIVE',
        ':once': 'once',
        ':at': occurrence,
      },
    });
  }

  async completeExhausted(tenantId: string, jobId: string, now: number): Promise<boolean> {
    return this.conditionalUpdate({
      Key: { [PK]: tenantId, [SK]: jobId },
      UpdateExpression: `SET #status = :completed, ${KEEP_DEFINITION}, #version = #version + :one, #updatedAt = :now`,
      ConditionExpression: '#status = :active AND attribute_not_exists(#next) AND #schedule.#type <> :once',
      ExpressionAttributeNames: {
        '#status': 'status',
        ...DEFINITION,
        '#updatedAt': 'updatedAt',
        '#next': dueIndex.sortKey,
        '#schedule': 'schedule',
        '#type': 'type',
      },
      ExpressionAttributeValues: {
        ':completed': 'COMPLETED',
        ':one': 1,
        ':now': now,
        ':active': 'ACTIVE',
        ':once': 'once',
      },
    });
  }

  // The in-flight marker of `overlap: "forbid"` (core/schedule/overlap.ts): one map attribute on the
  // job item, set and removed by conditional updates, so checking every run in flight costs one write.

  async takeInFlight(
    tenantId: string,
    jobId: string,
    marker: InFlightMarker,
    now: number,
  ): Promise<{ taken: true } | { taken: false; holder?: InFlightMarker }> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PK]: tenantId, [SK]: jobId },
          UpdateExpression: 'SET #inFlight = :marker',
          // Same rule as mayHoldInFlight: free, expired, or held by this occurrence.
          ConditionExpression:
            'attribute_exists(#sk) AND (attribute_not_exists(#inFlight) OR #inFlight.#until < :now OR #inFlight.#occurrence = :occurrence)',
          ExpressionAttributeNames: {
            '#sk': SK,
            '#inFlight': IN_FLIGHT,
            '#until': 'until',
            '#occurrence': 'scheduledFor',
          },
          ExpressionAttributeValues: { ':marker': marker, ':now': now, ':occurrence': marker.scheduledFor },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { taken: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const holder = itemOfConditionFailure<Record<string, unknown>>(error)?.[IN_FLIGHT] as InFlightMarker | undefined;
      return holder ? { taken: false, holder } : { taken: false };
    }
  }

  async releaseInFlight(tenantId: string, jobId: string, occurrence: number): Promise<boolean> {
    return this.conditionalUpdate({
      Key: { [PK]: tenantId, [SK]: jobId },
      UpdateExpression: 'REMOVE #inFlight',
      ConditionExpression: '#inFlight.#occurrence = :occurrence',
      ExpressionAttributeNames: { '#inFlight': IN_FLIGHT, '#occurrence': 'scheduledFor' },
      ExpressionAttributeValues: { ':occurrence': occurrence },
    });
  }

  private async conditionalUpdate(
    input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>,
  ): Promise<boolean> {
    try {
      await this.client.send(new UpdateCommand({ TableName: this.tableName, ...input }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
