/**
 * POST /v1/jobs Idempotency-Keys in the tenants table (tenantKeys.createKey): one item per tenant
 * and key, bound by a conditional put, deleted by TTL after 24 h. Not in the jobs table, whose
 * tenant partition is what GET /v1/jobs lists.
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CreateKeyBinding, CreateKeyRepository } from '#core/ports';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { TENANTS_TABLE } from './table-definitions.ts';
import { tenantKeys } from './tenant-keys.ts';

const TTL = TENANTS_TABLE.ttlAttribute;

export class DynamoCreateKeyRepository implements CreateKeyRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async bind(
    tenantId: string,
    key: string,
    binding: CreateKeyBinding,
    now: number,
    expiresAt: number,
  ): Promise<CreateKeyBinding | undefined> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...tenantKeys.createKey(tenantId, key),
            jobId: binding.jobId,
            fingerprint: binding.fingerprint,
            [TTL]: expiresAt,
          },
          // TTL deletes lazily (up to days late): an expired binding counts as absent.
          ConditionExpression: 'attribute_not_exists(#pk) OR #ttl < :nowSeconds',
          ExpressionAttributeNames: { '#pk': TENANTS_TABLE.partitionKey, '#ttl': TTL },
          ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const existing = itemOfConditionFailure<CreateKeyBinding>(error);
      if (!existing) throw error;
      return { jobId: existing.jobId, fingerprint: existing.fingerprint };
    }
  }
}
