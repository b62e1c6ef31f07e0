/**
 * Tenants and API tokens in DynamoDB (tenant-keys.ts). A token is written as three items in one
 * transaction: the tenant's listing record, the hash lookup the authorizer reads, and the id
 * lookup revocation starts from. Revocation marks both the lookup and the listing record.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { tokenHash } from '#core/tenants/api-tokens';
import type { ApiTokenInfo, IssuedToken, Tenant, TokenGrant } from '#core/tenants/model';
import type { TenantRepository } from '#core/tenants/ports';
import { isConditionFailure } from './conditional.ts';
import { tenantItemsWithPrefix, writeForExistingTenant } from './tenant-items.ts';
import { tenantKeys } from './tenant-keys.ts';

interface TokenIdItem {
  tenantId: string;
  tokenHash: string;
}

export class DynamoTenantRepository implements TenantRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createTenant(tenant: Tenant): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...tenantKeys.tenant(tenant.tenantId), kind: 'tenant', ...tenant },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async getTenant(tenantId: string): Promise<Tenant | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: tenantKeys.tenant(tenantId), ConsistentRead: true }),
    );
    return Item ? tenantOf(Item) : undefined;
  }

  /** A Scan of the tenant items: an admin listing, never on a request path. */
  async listTenants(): Promise<Tenant[]> {
    const tenants: Tenant[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: 'kind = :tenant',
          ExpressionAttributeValues: { ':tenant': 'tenant' },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      tenants.push(...(page.Items ?? []).map(tenantOf));
      start = page.LastEvaluatedKey;
    } while (start);
    return tenants.sort((a, b) => a.createdAt - b.createdAt);
  }

  async saveToken(token: IssuedToken): Promise<void> {
    const hash = tokenHash(token.token);
    const info: ApiTokenInfo = {
      tokenId: token.tokenId,
      tenantId: token.tenantId,
      prefix: token.prefix,
      createdAt: token.createdAt,
    };
    const put = (Item: Record<string, unknown>) => ({
      Put: { TableName: this.tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
    });
    await writeForExistingTenant(this.client, this.tableName, token.tenantId, [
      put({ ...tenantKeys.tokenRecord(token.tenantId, token.tokenId), kind: 'token', ...info }),
      put({ ...tenantKeys.tokenHash(hash), tenantId: token.tenantId, tokenId: token.tokenId }),
      put({ ...tenantKeys.tokenId(token.tokenId), tenantId: token.tenantId, tokenHash: hash }),
    ]);
  }

  async listTokens(tenantId: string): Promise<ApiTokenInfo[]> {
    const items = await tenantItemsWithPrefix(this.client, this.tableName, tenantId, tenantKeys.tokenRecordPrefix);
    return items.map(tokenInfoOf);
  }

  async revokeToken(tokenId: string, now: number): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: tenantKeys.tokenId(tokenId), ConsistentRead: true }),
    );
    if (!Item) return false;
    const { tenantId, tokenHash: hash } = Item as TokenIdItem;
    // The first revocation time stays: revoking twice is not a second event.
    const revoke = (Key: Record<string, string>) => ({
      Update: {
        TableName: this.tableName,
        Key,
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': now },
      },
    });
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [revoke(tenantKeys.tokenHash(hash)), revoke(tenantKeys.tokenRecord(tenantId, tokenId))],
        }),
      );
    } catch (error) {
      if (isConditionFailure(error) || (error as Error).name === 'TransactionCanceledException') return false;
      throw error;
    }
    return true;
  }

  async findGrant(tokenSha256: string): Promise<TokenGrant | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: tenantKeys.tokenHash(tokenSha256) }),
    );
    if (!Item) return undefined;
    return {
      tenantId: Item.tenantId as string,
      tokenId: Item.tokenId as string,
      ...(typeof Item.revokedAt === 'number' ? { revokedAt: Item.revokedAt } : {}),
    };
  }
}

function tenantOf(item: Record<string, unknown>): Tenant {
  return {
    tenantId: item.tenantId as string,
    name: item.name as string,
    createdAt: item.createdAt as number,
    ...(item.quotas ? { quotas: item.quotas as Tenant['quotas'] } : {}),
  };
}

function tokenInfoOf(item: Record<string, unknown>): ApiTokenInfo {
  return {
    tokenId: item.tokenId as string,
    tenantId: item.tenantId as string,
    prefix: item.prefix as string,
    createdAt: item.createdAt as number,
    ...(typeof item.revokedAt === 'number' ? { revokedAt: item.revokedAt } : {}),
  };
}
