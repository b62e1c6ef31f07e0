/**
 * Issue #22 at the handlers' edge: a `priority` that is no lane is a 400 naming the field from
 * the create-job and update-job handlers (their schema check, before any AWS call), never a 5xx;
 * a dispatch message keeps its lane through the executor's parse, and one naming no lane is
 * malformed (set aside), never read as `normal`.
 */
import type { APIGatewayProxyEvent, Context, SQSRecord } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { laneOfMessage, laneQueueUrlOfSource } from '#adapters/sqs/lane-queues';
import { PRIORITIES } from '#core/priority';
import { dispatchRequestOf } from '#core/runs/send-runs';
import { handler as createJob } from '#handlers/api/create-job';
import { handler as updateJob } from '#handlers/api/update-job';
import { MalformedMessageError, parseDispatchMessage } from '#handlers/dispatch-message';

const context = {
  functionName: 'api',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

function request(method: 'POST' | 'PATCH', body: string): APIGatewayProxyEvent {
  const jobId = '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E';
  return {
    body,
    headers: { 'content-type': 'application/json', 'if-match': '"1"' },
    multiValueHeaders: {},
    httpMethod: method,
    isBase64Encoded: false,
    path: method === 'POST' ? '/v1/jobs' : `/v1/jobs/${jobId}`,
    pathParameters: method === 'POST' ? null : { id: jobId },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: method === 'POST' ? '/v1/jobs' : '/v1/jobs/{id}',
    requestContext: { authorizer: { tenantId: 'tenant-a' } } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

const notALane = fc
  .oneof(fc.constantFrom('HIGH', 'urgent', '', ' high', null, 1, true, {}, []), fc.jsonValue())
  .filter((value) => !(PRIORITIES as readonly unknown[]).includes(value));

describe('priority at the API handlers', () => {
  it('answers any priority that is no lane with a 400 naming priority, on create and PATCH', async () => {
    await fc.assert(
      fc.asyncProperty(notALane, async (priority) => {
        const create = await createJob(
          request(
            'POST',
            JSON.stringify({ target: { url: 'https://example.com/' }, schedule: { type: 'once' }, priority }),
          ),
          context,
        );
        const patch = await updateJob(request('PATCH', JSON.stringify({ priority })), context);
        for (const response of [create, patch]) {
          expect(response.statusCode).toBe(400);
          expect(JSON.parse(response.body).error.details).toContainEqual({
            field: 'priority',
            reason: expect.stringMatching(/high, normal, low/),
          });
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('the lane of a dispatch message', () => {
  const run = { tenantId: 't', jobId: 'J', runId: 'J_1795510800000_1', scheduledFor: 1795510800000, attempt: 1 };
  const record = (body: unknown) => ({ messageId: 'm-1', body: JSON.stringify(body), attributes: {} }) as SQSRecord;

  it('round-trips every lane from the run to the executor', () => {
    for (const priority of PRIORITIES) {
      const { message } = dispatchRequestOf({ ...run, priority }, 0);
      const read = parseDispatchMessage(record(message));
      expect(read).toEqual(message);
      expect(laneOfMessage(read)).toBe(priority);
    }
  });

  it('refuses a message naming no lane as malformed', () => {
    for (const priority of ['urgent', 'HIGH', 7, null, {}]) {
      expect(() => parseDispatchMessage(record({ ...run, priority }))).toThrow(MalformedMessageError);
    }
  });

  it('finds the lane queue a record came from by the queue name in its ARN, for AWS and the emulator', () => {
    const aws = {
      high: 'https://sqs.eu-west-1.amazonaws.com/123456789012/chronos-prod-dispatch-high',
      normal: 'https://sqs.eu-west-1.amazonaws.com/123456789012/chronos-prod-dispatch',
      low: 'https://sqs.eu-west-1.amazonaws.com/123456789012/chronos-prod-dispatch-low',
    };
    expect(laneQueueUrlOfSource(aws, 'arn:aws:sqs:eu-west-1:123456789012:chronos-prod-dispatch-high')).toBe(aws.high);
    expect(laneQueueUrlOfSource(aws, 'arn:aws:sqs:eu-west-1:123456789012:chronos-prod-dispatch')).toBe(aws.normal);
    expect(laneQueueUrlOfSource(aws, 'arn:aws:sqs:eu-west-1:123456789012:other')).toBeUndefined();
    expect(laneQueueUrlOfSource(aws, undefined)).toBeUndefined();
    const local = {
      high: 'http://127.0.0.1:4566/000000000000/dispatch-high',
      normal: 'http://127.0.0.1:4566/000000000000/dispatch',
      low: 'http://127.0.0.1:4566/000000000000/dispatch-low',
    };
    expect(laneQueueUrlOfSource(local, 'arn:aws:sqs:us-east-1:000000000000:dispatch-low')).toBe(local.low);
  });
});
