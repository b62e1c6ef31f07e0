/**
 * A per-tenant token bucket in DynamoDB, as GCRA (token-bucket.ts): one item per tenant and bucket
 * holding `tat`. A request is one conditional update — `tat = :now + n·interval` while the bucket
 * is idle (`tat <= now`), else `tat = tat + n·interval` while `tat + (n − 1)·interval <= now +
 * tolerance` — so concurrent requests each move `tat` atomically and none is refused for losing a
 * race. A refused request writes nothing. The create bucket (POST /v1/jobs) is one such bucket;
 * the trigger bucket (trigger-rate-limiter.ts) another.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimiter } from '#core/tenants/ports';
import { type BucketLimits, gcraDecide, gcraParameters, tokensFor } from '#core/tenants/token-bucket';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { tenantKeys } from './tenant-keys.ts';

/** A GCRA bucket per tenant, kept in the item `keyOf(tenantId)` of the tenants table. */
export class DynamoBucketRateLimiter implements RateLimiter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly keyOf: (tenantId: string) => Record<string, string>,
  ) {}

  async take(tenantId: string, limits: BucketLimits, now: number, count = 1) {
    const { intervalMs, toleranceMs } = gcraParameters(limits);
    const tokens = tokensFor(count, limits);
    const key = this.keyOf(tenantId);
    // Idle bucket (or none yet): start again from now (tokens never exceed the burst).
    const idle = await this.update(key, 'SET tat = :next', 'attribute_not_exists(tat) OR tat <= :now', {
      ':next': now + tokens * intervalMs,
      ':now': now,
    });
    if (idle === 'updated') return { allowed: true as const };
    // Busy bucket: `tokens` more intervals, if the last of them is within the burst.
    const busy = await this.update(key, 'SET tat = tat + :step', 'tat > :now AND tat <= :limit', {
      ':step': tokens * intervalMs,
      ':now': now,
      ':limit': now + toleranceMs - (tokens - 1) * intervalMs,
    });
    if (busy === 'updated') return { allowed: true as const };
    const decision = gcraDecide(busy, limits, now, tokens);
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

/** The create bucket of POST /v1/jobs (quotas createsPerSecond, createBurst). */
export class DynamoCreateRateLimiter extends DynamoBucketRateLimiter {
  constructor(client: DynamoDBDocumentClient, tableName: string) {
    super(client, tableName, tenantKeys.createBucket);
  }
}
