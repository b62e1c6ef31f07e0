/**
 * The clients every function uses carry the two per-request savings of the CPU probe (issue #15):
 * SigV4 signs with KeyedSha256, and no SDK logger middleware redacts copies of each request and
 * response for a logger nobody gave the SDK.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createCloudWatchClient, createDocumentClient, createSqsClient, socketsPerClient } from '#adapters/aws-clients';
import { KeyedSha256 } from '#adapters/keyed-sha256';
import { connectionsOpened } from '../../support/connections-opened.ts';

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

describe('AWS clients: the connection pool', () => {
  it('is the SDK’s 50 sockets per invocation that may share the process (AWS_LAMBDA_MAX_CONCURRENCY)', () => {
    expect(socketsPerClient({})).toBe(50);
    expect(socketsPerClient({ AWS_LAMBDA_MAX_CONCURRENCY: '1' })).toBe(50);
    expect(socketsPerClient({ AWS_LAMBDA_MAX_CONCURRENCY: '8' })).toBe(400);
    for (const odd of ['', 'x', '-3', '2.5', 'Infinity']) {
      expect(socketsPerClient({ AWS_LAMBDA_MAX_CONCURRENCY: odd })).toBe(50);
    }
  });

  it('opens more than 50 connections at once when invocations share the process, and 50 when not', async () => {
    const opened = async (maxConcurrency: string | undefined) => {
      const saved = { ...process.env };
      if (maxConcurrency === undefined) delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
      else process.env.AWS_LAMBDA_MAX_CONCURRENCY = maxConcurrency;
      try {
        return await connectionsOpened(120, (endpoint) => {
          // Credentials and the region are read at the first request: the variables stay until the end.
          Object.assign(process.env, {
            AWS_ENDPOINT_URL_DYNAMODB: endpoint,
            AWS_ACCESS_KEY_ID: 'test',
            AWS_SECRET_ACCESS_KEY: 'test',
          });
          const client = createDocumentClient();
          return { client, send: () => client.send(new GetCommand({ TableName: 't', Key: { id: 'x' } })) };
        });
      } finally {
        process.env = saved;
      }
    };
    expect(await opened('4')).toBe(120);
    expect(await opened(undefined)).toBe(50);
  });
});
