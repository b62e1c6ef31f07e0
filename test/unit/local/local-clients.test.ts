/**
 * The local event sources' SQS client: every poller worker long-polls through it, and AWS's pollers
 * are its own fleet, so its pool must not hold a worker's receive behind 50 others (a precision
 * burst of 5,000 runs waits in 600 workers).
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { createLocalClients } from '#local/emulators/local-clients';
import { connectionsOpened } from '../../support/connections-opened.ts';

describe('local clients', () => {
  it('the SQS client opens a connection for every receive at once, beyond the SDK’s 50', async () => {
    const opened = await connectionsOpened(120, (endpoint) => {
      const clients = createLocalClients({ dynamodb: 'http://127.0.0.1:1', sqs: endpoint });
      return {
        client: clients,
        send: () =>
          clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: `${endpoint}/000000000000/q`, WaitTimeSeconds: 1 })),
      };
    });
    expect(opened).toBe(120);
  });
});
