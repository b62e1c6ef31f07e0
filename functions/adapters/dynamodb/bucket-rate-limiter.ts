/**
 * A per-tenant token bucket in DynamoDB, as GCRA (token-bucket.ts): one item per tenant and bucket
 * holding `tat`. A request is one conditional update — `tat = :now + n·interval` while the bucket
 * is idle (`tat <= now`), else `tat = tat + n·interval` while `tat + (n − 1)·interval <= now +
 * tolerance` — so concurrent requests each move `tat` atomically and none is refused for losing a
 * race. A refused request writes nothing. The trigger bucket (trigger-rate-limiter.ts) is one; the
 * create bucket is the same GCRA on the tenant item, written with the active-job counter
 * (job-admissions.ts).
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimiter } from '#core/tenants/ports';
import { type BucketLimits, gcraDecide, gcraParameters, tokensFor } from '#core/tenants/token-bucket';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { LastSeen } from './last-seen.ts';

/** Buckets whose last `tat` a process remembers, at most (a Lambda instance serves a few tenants). */
const MAX_REMEMBERED = 10_000;

type UpdateResult = { updated: true; tat: number } | { updated: false; tat?: number };

/** A GCRA bucket per tenant, kept in the item `keyOf(tenantId)` of the tenants table. */
export class DynamoBucketRateLimiter implements RateLimiter {
  /**
   * The `tat` this process last saw per bucket. Under load a bucket is busy on almost every
   * request, and trying the idle update first then costs a failed conditional write (a write unit)
   * before the busy one: a bucket last seen busy is tried busy first. Only the order of the two
   * conditional updates depends on it, never the decision.
   */
  readonly #seen = new LastSeen<number>(MAX_REMEMBERED);

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly keyOf: (tenantId: string) => Record<string, string>,
  ) {}

  async take(tenantId: string, limits: BucketLimits, now: number, count = 1) {
    const { intervalMs, toleranceMs } = gcraParameters(limits);
    const tokens = tokensFor(count, limits);
    const key = this.keyOf(tenantId);
    const seenKey = JSON.stringify(key);
    // Idle bucket (or none yet): start again from now (tokens never exceed the burst).
    const idle = () =>
      this.update(key, 'SET tat = :next', 'attribute_not_exists(tat) OR tat <= :now', {
        ':next': now + tokens * intervalMs,
        ':now': now,
      });
    // Busy bucket: `tokens` more intervals, if the last of them is within the burst.
    const busy = () =>
      this.update(key, 'SET tat = tat + :step', 'tat > :now AND tat <= :limit', {
        ':step': tokens * intervalMs,
        ':now': now,
        ':limit': now + toleranceMs - (tokens - 1) * intervalMs,
      });
    const allowed = (result: { tat: number }) => {
      this.#seen.set(seenKey, result.tat);
      return { allowed: true as const };
    };
    const refusedOrAllowed = (tat: number | undefined) => {
      if (tat !== undefined) this.#seen.set(seenKey, tat);
      const decision = gcraDecide(tat, limits, now, tokens);
      // The bucket went idle between the two updates: a request that found it so is allowed.
      if (decision.allowed) return { allowed: true as const };
      return { allowed: false as const, retryAfterSeconds: decision.retryAfterSeconds };
    };

    if ((this.#seen.get(seenKey) ?? 0) > now) {
      const first = await busy();
      if (first.updated) return allowed(first);
      // Still busy, so over the burst: refused without trying the idle update, which would fail.
      if (first.tat !== undefined && first.tat > now) return refusedOrAllowed(first.tat);
    }
    const fresh = await idle();
    if (fresh.updated) return allowed(fresh);
    const next = await busy();
    if (next.updated) return allowed(next);
    return refusedOrAllowed(next.tat);
  }

  /** The new `tat` when the update was made, else the `tat` that made the condition fail. */
  private async update(
    Key: Record<string, string>,
    UpdateExpression: string,
    ConditionExpression: string,
    values: Record<string, number>,
  ): Promise<UpdateResult> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key,
          UpdateExpression,
          ConditionExpression,
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { updated: true, tat: Attributes?.tat as number };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const tat = itemOfConditionFailure<{ tat?: number }>(error)?.tat;
      return tat === undefined ? { updated: false } : { updated: false, tat };
    }
  }
}
