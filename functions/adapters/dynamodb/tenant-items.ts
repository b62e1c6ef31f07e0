/**
 * What the tenant repositories share about the items under a tenant's partition (tenant-keys.ts):
 * writes that must only happen for a tenant that exists, and reading every item of one kind.
 */
import {
  type DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '#core/errors';
import { tenantKeys } from './tenant-keys.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Writes `items` in one transaction, conditioned on the tenant item existing: NotFoundError
 * when it does not (the first cancellation reason is that check's), anything else as thrown.
 */
export async function writeForExistingTenant(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  items: TransactItem[],
): Promise<void> {
  const tenantExists: TransactItem = {
    ConditionCheck: {
      TableName: tableName,
      Key: tenantKeys.tenant(tenantId),
      ConditionExpression: 'attribute_exists(pk)',
    },
  };
  try {
    await client.send(new TransactWriteCommand({ TransactItems: [tenantExists, ...items] }));
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException') {
      const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
      if (reasons[0]?.Code === 'ConditionalCheckFailed') throw new NotFoundError(`tenant ${tenantId}`);
    }
    throw error;
  }
}

/** Every item of the tenant's partition whose sort key starts with `prefix`, page by page. */
export async function tenantItemsWithPrefix(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenantId: string,
  prefix: string,
  options: { consistent?: boolean } = {},
): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': tenantKeys.tenant(tenantId).pk, ':prefix': prefix },
        ...(options.consistent ? { ConsistentRead: true } : {}),
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
