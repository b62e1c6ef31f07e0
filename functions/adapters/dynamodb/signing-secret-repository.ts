/**
 * Tenants' sealed signing secrets in the tenants table, one item per secret under the tenant's
 * partition (tenant-keys.ts). A rotation is one transaction: the tenant must exist, the new
 * secret is put, the previous ones get their expiry and the expired ones are deleted.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SigningSecretStore, StoredSigningSecret } from '#core/tenants/signing-secrets';
import { tenantItemsWithPrefix, writeForExistingTenant } from './tenant-items.ts';
import { tenantKeys } from './tenant-keys.ts';

export class DynamoSigningSecretRepository implements SigningSecretStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async rotate(
    secret: StoredSigningSecret,
    expire: ReadonlyArray<{ secretId: string; expiresAt: number }>,
    remove: readonly string[],
  ): Promise<void> {
    const { tenantId } = secret;
    await writeForExistingTenant(this.client, this.tableName, tenantId, [
      {
        Put: {
          TableName: this.tableName,
          Item: { ...tenantKeys.signingSecret(tenantId, secret.secretId), kind: 'signing-secret', ...secret },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...expire.map(({ secretId, expiresAt }) => ({
        Update: {
          TableName: this.tableName,
          Key: tenantKeys.signingSecret(tenantId, secretId),
          UpdateExpression: 'SET expiresAt = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':at': expiresAt },
        },
      })),
      ...remove.map((secretId) => ({
        Delete: { TableName: this.tableName, Key: tenantKeys.signingSecret(tenantId, secretId) },
      })),
    ]);
  }

  async list(tenantId: string): Promise<StoredSigningSecret[]> {
    // Consistent: a rotation must see the secrets the previous one wrote.
    const items = await tenantItemsWithPrefix(this.client, this.tableName, tenantId, tenantKeys.signingSecretPrefix, {
      consistent: true,
    });
    return items.map(storedOf);
  }
}

function storedOf(item: Record<string, unknown>): StoredSigningSecret {
  return {
    secretId: item.secretId as string,
    tenantId: item.tenantId as string,
    prefix: item.prefix as string,
    createdAt: item.createdAt as number,
    sealed: item.sealed as string,
    ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}),
  };
}
