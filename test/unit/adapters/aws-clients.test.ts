/**
 * The clients every function uses carry the two per-request savings of the CPU probe (issue #15):
 * SigV4 signs with KeyedSha256, and no SDK logger middleware redacts copies of each request and
 * response for a logger nobody gave the SDK.
 */
import { describe, expect, it } from 'vitest';
import { createCloudWatchClient, createDocumentClient, createSqsClient } from '#adapters/aws-clients';
import { KeyedSha256 } from '#adapters/keyed-sha256';

process.env.AWS_REGION ??= 'us-east-1';

describe('AWS clients', () => {
  const clients = {
    DynamoDB: createDocumentClient(),
    SQS: createSqsClient(),
    CloudWatch: createCloudWatchClient(),
  };

  for (const [service, client] of Object.entries(clients)) {
    it(`${service}: signs with KeyedSha256 and has no SDK logger middleware`, () => {
      expect(client.config.sha256).toBe(KeyedSha256);
      const names = client.middlewareStack.identify();
      expect(names.some((name) => name.startsWith('hostHeaderMiddleware'))).toBe(true);
      expect(names.filter((name) => name.startsWith('loggerMiddleware'))).toEqual([]);
    });
  }
});
