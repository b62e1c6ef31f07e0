/**
 * The jobs counted `ACTIVE` by their admission (`admittedJobs` on the tenant item, written by
 * job-admissions.ts): the share of the job-status counters' `ACTIVE` that creates over the API no
 * longer write to the counter item. Read by the stats with the tenants table only — a Query of the
 * tenant's own item, a Scan for all — projecting the keys and that attribute, all the stats
 * function's IAM grant allows of the table (api-handlers.ts, grantTenantIdScan).
 */
import { type DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { AdmittedJobs } from './job-status-counts.ts';
import { ADMITTED_JOBS_ATTRIBUTE, tenantKeys } from './tenant-keys.ts';

const NAMES = { '#pk': 'pk', '#sk': 'sk', '#admitted': ADMITTED_JOBS_ATTRIBUTE };
/** A tenant item's keys: `pk` is this prefix and the tenant's id. */
const TENANT_ITEM = tenantKeys.tenant('');

export class DynamoAdmittedJobs implements AdmittedJobs {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tenantsTable: string,
  ) {}

  async of(tenantId: string): Promise<number> {
    const { pk, sk } = tenantKeys.tenant(tenantId);
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tenantsTable,
        KeyConditionExpression: '#pk = :pk AND #sk = :sk',
        Select: 'SPECIFIC_ATTRIBUTES',
        ProjectionExpression: '#admitted',
        ExpressionAttributeNames: NAMES,
        ExpressionAttributeValues: { ':pk': pk, ':sk': sk },
        ConsistentRead: true,
      }),
    );
    return shareOf(Items[0]);
  }

  /** Every tenant with its share: one Scan of the keys and that attribute, whatever else the table holds. */
  async all(): Promise<Map<string, number>> {
    const tenants = new Map<string, number>();
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.tenantsTable,
          Select: 'SPECIFIC_ATTRIBUTES',
          ProjectionExpression: '#pk, #sk, #admitted',
          ExpressionAttributeNames: NAMES,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        if (item.sk === TENANT_ITEM.sk) tenants.set(String(item.pk).slice(TENANT_ITEM.pk.length), shareOf(item));
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return tenants;
  }
}

function shareOf(item: Record<string, unknown> | undefined): number {
  return typeof item?.[ADMITTED_JOBS_ATTRIBUTE] === 'number' ? (item[ADMITTED_JOBS_ATTRIBUTE] as number) : 0;
}
