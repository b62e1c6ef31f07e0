/**
 * The active-job quota. A counter on the tenant item is incremented with a condition
 * (`activeJobs < max`) before a job is written, so concurrent creates can never overshoot it.
 * Jobs end in many places (completion, scanner, cancel), and none of them decrements the counter:
 * it only ever counts up. When it reaches the quota the real number is counted once — a Query of
 * the tenant's jobs that can still fire (ACTIVE, PAUSED) — and the counter is set to that, after
 * which creates go on until it reaches the quota again. The count is paid once per `max` creates,
 * or, for a tenant really at its quota, at most once per RECOUNT_AFTER_MS.
 */
import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ActiveJobLimiter } from '#core/tenants/ports';
import { isConditionFailure } from './conditional.ts';
import { JOBS_TABLE } from './table-definitions.ts';
import { tenantKeys } from './tenant-keys.ts';

/** A tenant found at its quota is recounted at most this often. */
export const RECOUNT_AFTER_MS = 2_000;

export class DynamoActiveJobLimiter implements ActiveJobLimiter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tenantsTable: string,
    private readonly jobsTable: string,
  ) {}

  async reserve(tenantId: string, max: number, now: number): Promise<boolean> {
    if (await this.increment(tenantId, max)) return true;
    const recounted = await this.recount(tenantId, now);
    return recounted && (await this.increment(tenantId, max));
  }

  async release(tenantId: string): Promise<void> {
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.tenantsTable,
          Key: tenantKeys.tenant(tenantId),
          UpdateExpression: 'ADD activeJobs :minusOne',
          ConditionExpression: 'attribute_exists(pk) AND activeJobs > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      )
      .catch((error) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  private async increment(tenantId: string, max: number): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tenantsTable,
          Key: tenantKeys.tenant(tenantId),
          UpdateExpression: 'ADD activeJobs :one',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(activeJobs) OR activeJobs < :max)',
          ExpressionAttributeValues: { ':one': 1, ':max': max },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Sets the counter to the real number of jobs that can still fire; false when recounted too recently. */
  private async recount(tenantId: string, now: number): Promise<boolean> {
    const count = await this.countActive(tenantId);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tenantsTable,
          Key: tenantKeys.tenant(tenantId),
          UpdateExpression: 'SET activeJobs = :count, activeJobsCountedAt = :now',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(activeJobsCountedAt) OR activeJobsCountedAt < :stale)',
          ExpressionAttributeValues: { ':count': count, ':now': now, ':stale': now - RECOUNT_AFTER_MS },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async countActive(tenantId: string): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.jobsTable,
          KeyConditionExpression: '#tenant = :tenant',
          // A workflow counts as one job: its head, not its task items (core/workflows/stored.ts).
          FilterExpression: '#status IN (:active, :paused) AND (attribute_not_exists(#kind) OR #kind <> :task)',
          ExpressionAttributeNames: { '#tenant': JOBS_TABLE.partitionKey, '#status': 'status', '#kind': 'kind' },
          ExpressionAttributeValues: {
            ':tenant': tenantId,
            ':active': 'ACTIVE',
            ':paused': 'PAUSED',
            ':task': 'workflow-task',
          },
          Select: 'COUNT',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return count;
  }
}
