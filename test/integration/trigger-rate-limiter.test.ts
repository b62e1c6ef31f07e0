/**
 * The trigger bucket in DynamoDB Local: requests for several tokens at once (a resume catch-up)
 * take all or none under concurrency, and the trigger and create buckets of a tenant are apart.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoJobAdmissions } from '#adapters/dynamodb/job-admissions';
import { tenantKeys } from '#adapters/dynamodb/tenant-keys';
import { DynamoTriggerRateLimiter } from '#adapters/dynamodb/trigger-rate-limiter';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';

let aws: EmulatedAws;
let table: string;

beforeAll(async () => {
  aws = await startEmulatedAws();
  table = aws.resources.tables.tenants;
}, 60_000);
afterAll(async () => {
  await aws?.stop();
});

describe('trigger bucket', () => {
  it('grants concurrent multi-token requests all or none, never more tokens than the burst', async () => {
    const limiter = new DynamoTriggerRateLimiter(aws.documents, table);
    const limits = { perSecond: 1, burst: 10 };
    const now = Date.now();
    const counts = [3, 3, 3, 3, 2, 2, 1, 4];

    const answers = await Promise.all(counts.map((count) => limiter.take('multi', limits, now, count)));

    const granted = counts.filter((_, i) => answers[i]?.allowed).reduce((sum, count) => sum + count, 0);
    expect(granted).toBeLessThanOrEqual(10);
    // Whatever is left is less than the smallest request that was refused.
    const smallestRefused = Math.min(...counts.filter((_, i) => !answers[i]?.allowed));
    expect(10 - granted).toBeLessThan(smallestRefused);
    for (const answer of answers) if (!answer.allowed) expect(answer.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('keeps apart from the create bucket of the same tenant', async () => {
    const triggers = new DynamoTriggerRateLimiter(aws.documents, table);
    const creates = new DynamoJobAdmissions(aws.documents, table, aws.resources.tables.jobs);
    const limits = { perSecond: 1, burst: 2 };
    const now = Date.now();
    await aws.documents.send(
      new PutCommand({ TableName: table, Item: { ...tenantKeys.tenant('apart'), kind: 'tenant' } }),
    );

    expect((await triggers.take('apart', limits, now, 2)).allowed).toBe(true);
    expect((await triggers.take('apart', limits, now)).allowed).toBe(false);
    expect((await creates.admit('apart', limits, 10, now)).admitted).toBe(true);
  });
});
