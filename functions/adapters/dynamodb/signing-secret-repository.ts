/**
 * Tenants' sealed signing secrets in the tenants table, one item per secret under the tenant's
 * partition (tenant-keys.ts). A rotation is one transaction: the tenant must exist, the new
 * secret is put, the previous ones get their expiry and the expired ones are deleted.
 */
import { type DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '#core/errors';
import type { SigningSecretStore, StoredSigningSecret } from '#core/tenants/signing-secrets';
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
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tableName,
                Key: tenantKeys.tenant(tenantId),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
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
          ],
        }),
      );
    } catch (error) {
      if ((error as Error).name === 'TransactionCanceledException') {
        const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
        if (reasons[0]?.Code === 'ConditionalCheckFailed') throw new NotFoundError(`tenant ${tenantId}`);
      }
      throw error;
    }
  }

  async list(tenantId: string): Promise<StoredSigningSecret[]> {
    const secrets: StoredSigningSecret[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: {
            ':pk': tenantKeys.tenant(tenantId).pk,
            ':prefix': tenantKeys.signingSecretPrefix,
          },
          // A rotation must see the secrets the previous one wrote.
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      secrets.push(...(page.Items ?? []).map(storedOf));
      start = page.LastEvaluatedKey;
    } while (start);
    return secrets;
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
