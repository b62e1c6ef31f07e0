/**
 * Jobs by status without reading the jobs: one counter item per tenant and one for all tenants,
 * moved with atomic ADDs where a job's status changes (create, pause, resume, cancel, finish).
 * Each move follows a conditional write that succeeds once, so a retried request or a redelivered
 * stream record does not move the counters again; a process that dies between the status write
 * and the ADD leaves them one off, which is why the stats show them as counters, not as a census.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ALL_TENANTS, type JobStatusCounts } from '#core/metrics/ports';
import { JOB_STATUSES, type JobStatus } from '#core/model';
import { jobCountsKey } from './metrics-keys.ts';

export class DynamoJobStatusCounts implements JobStatusCounts {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async shift(tenantId: string, from: JobStatus | undefined, to: JobStatus): Promise<void> {
    if (from === to) return;
    const names: Record<string, string> = { '#to': to };
    const values: Record<string, number> = { ':up': 1 };
    let expression = 'ADD #to :up';
    if (from !== undefined) {
      names['#from'] = from;
      values[':down'] = -1;
      expression += ', #from :down';
    }
    await Promise.all(
      [tenantId, ALL_TENANTS].map((scope) =>
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: jobCountsKey(scope),
            UpdateExpression: expression,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          }),
        ),
      ),
    );
  }

  async read(scope: string): Promise<Partial<Record<JobStatus, number>>> {
    const { Item = {} } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: jobCountsKey(scope) }),
    );
    return Object.fromEntries(
      JOB_STATUSES.map((status) => [status, typeof Item[status] === 'number' ? Item[status] : 0]),
    );
  }
}
