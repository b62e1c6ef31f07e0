/**
 * The trigger bucket: runs created outside the schedule (trigger, a PATCHed schedule due at once,
 * resume catch-up, dead-letter re-drive; quotas triggersPerSecond, triggerBurst). The same GCRA
 * bucket as the create bucket, in an item of its own, so creating jobs and creating runs by hand
 * do not eat into each other.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoBucketRateLimiter } from './bucket-rate-limiter.ts';
import { tenantKeys } from './tenant-keys.ts';

export class DynamoTriggerRateLimiter extends DynamoBucketRateLimiter {
  constructor(client: DynamoDBDocumentClient, tableName: string) {
    super(client, tableName, tenantKeys.triggerBucket);
  }
}
