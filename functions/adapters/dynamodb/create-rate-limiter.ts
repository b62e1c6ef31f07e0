/**
 * The per-tenant create bucket in DynamoDB, as GCRA (token-bucket.ts): one item per tenant holding
 * `tat`. A request is one conditional update — `tat = :now + interval` while the bucket is idle
 * (`tat <= now`), else `tat = tat + interval` while `tat <= now + tolerance` — so concurrent
 * requests each move `tat` atomically and none is refused for losing a race. A refused request
 * writes nothing.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimiter } from '#core/tenants/ports';
import { type BucketLimits, gcraDecide, gcraParameters } from '#core/tenants/token-bucket';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { tenantKeys } from './tenant-keys.ts';

export class DynamoCreateRateLimiter implements RateLimiter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async take(tenantId: string, limits: BucketLimits, now: number) {
    const { intervalMs, toleranceMs } = gcraParameters(limits);
    const key = tenantKeys.createBucket(tenantId);
    // Idle bucket (or none yet): start again from now.
    const idle = await this.update(key, 'SET tat = :next', 'attribute_not_exists(tat) OR tat <= :now', {
      ':next': now + intervalMs,
      ':now': now,
    });
    if (idle === 'updated') return { allowed: true as const };
    // Busy bucket: one more interval, if within the burst.
    const busy = await this.update(key, 'SET tat = tat + :interval', 'tat > :now AND tat <= :limit', {
      ':interval': intervalMs,
      ':now': now,
      ':limit': now + toleranceMs,
    });
    if (busy === 'updated') return { allowed: true as const };
    const decision = gcraDecide(busy, limits, now);
    // The bucket went idle between the two updates: a request that found it so is allowed.
    if (decision.allowed) return { allowed: true as const };
    return { allowed: false as const, retryAfterSeconds: decision.retryAfterSeconds };
  }

  /** 'updated', or the `tat` that made the condition fail. */
  private async update(
    Key: Record<string, string>,
    UpdateExpression: string,
    ConditionExpression: string,
    values: Record<string, number>,
  ): Promise<'updated' | number | undefined> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key,
          UpdateExpression,
          ConditionExpression,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'updated';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return itemOfConditionFailure<{ tat?: number }>(error)?.tat;
    }
  }
}
