/**
 * Per-tenant in-flight slots of the executors, one item per tenant holding a map of run id →
 * slot expiry (the run's lease). Taking a slot is one conditional update (`size(slots) < cap`);
 * when the tenant is at its cap, expired slots (an executor died holding them) are removed and the
 * take tried once more, so a crash costs a slot only until the lease it held would have expired.
 * The item is hot only for a tenant with many runs at once, and that is what the cap bounds.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RunSlots } from '#core/tenants/ports';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { tenantKeys } from './tenant-keys.ts';

export class DynamoRunSlots implements RunSlots {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async acquire(tenantId: string, runId: string, cap: number, expiresAt: number, now: number): Promise<boolean> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      const held = await this.take(tenantId, runId, cap, expiresAt);
      if (held === 'taken') return true;
      if (held === undefined) {
        // The tenant's first run: create the empty slots item and take again.
        await this.ensureItem(tenantId);
        continue;
      }
      const expired = Object.entries(held).filter(([, slotExpiry]) => slotExpiry <= now);
      if (expired.length === 0) {
        // Refused with room left: the item did not exist yet when this take ran (the read that
        // followed found it just created by a concurrent first run), or a slot was freed meanwhile.
        if (Object.keys(held).length < cap) continue;
        return false;
      }
      await this.removeExpired(tenantId, expired);
    }
    return false;
  }

  async release(tenantId: string, runId: string): Promise<void> {
    await this.client
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: tenantKeys.runSlots(tenantId),
          UpdateExpression: 'REMOVE slots.#run',
          ConditionExpression: 'attribute_exists(slots)',
          ExpressionAttributeNames: { '#run': runId },
        }),
      )
      .catch((error) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  /** 'taken', or the slots held when the tenant is at its cap (undefined: no slots item yet). */
  private async take(
    tenantId: string,
    runId: string,
    cap: number,
    expiresAt: number,
  ): Promise<'taken' | Record<string, number> | undefined> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: tenantKeys.runSlots(tenantId),
          UpdateExpression: 'SET slots.#run = :expiresAt',
          // A redelivered message whose run already holds a slot keeps it (no second slot).
          ConditionExpression: 'attribute_exists(slots) AND (size(slots) < :cap OR attribute_exists(slots.#run))',
          ExpressionAttributeNames: { '#run': runId },
          ExpressionAttributeValues: { ':expiresAt': expiresAt, ':cap': cap },
          // At the cap the slots held come back with the refusal: no second read to look for expired ones.
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'taken';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const item = error.Item
        ? itemOfConditionFailure<{ slots?: Record<string, number> }>(error)
        : await this.read(tenantId);
      return item?.slots;
    }
  }

  private async read(tenantId: string): Promise<{ slots?: Record<string, number> } | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: tenantKeys.runSlots(tenantId), ConsistentRead: true }),
    );
    return Item as { slots?: Record<string, number> } | undefined;
  }

  /** Creates the empty slots item; false when it already existed (so the cap was the reason). */
  private async ensureItem(tenantId: string): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...tenantKeys.runSlots(tenantId), slots: {} },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Removes the given expired slots, each only if it still holds the expiry seen. */
  private async removeExpired(tenantId: string, expired: Array<[string, number]>): Promise<void> {
    const names = Object.fromEntries(expired.map(([runId], i) => [`#r${i}`, runId]));
    const values = Object.fromEntries(expired.map(([, expiresAt], i) => [`:e${i}`, expiresAt]));
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: tenantKeys.runSlots(tenantId),
          UpdateExpression: `REMOVE ${expired.map((_, i) => `slots.#r${i}`).join(', ')}`,
          ConditionExpression: expired.map((_, i) => `slots.#r${i} = :e${i}`).join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      // Someone else removed or renewed them first: the next take finds out.
      if (!isConditionFailure(error)) throw error;
    }
  }
}
