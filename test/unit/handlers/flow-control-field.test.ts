/**
 * The `flowControl` field at the edge (issue #22): any value that is not a key with a limit in
 * bounds is a 400 naming `flowControl` or `flowControl.<field>` — never a 5xx — on create and on
 * PATCH. Invalid input is rejected before any AWS call, so these run without emulators.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFlowControl } from '#core/flow-control/flow-control-settings';
import { handler as createJob } from '#handlers/api/create-job';
import { handler as updateJob } from '#handlers/api/update-job';

const context = {
  functionName: 'api',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

function event(method: 'POST' | 'PATCH', body: unknown): APIGatewayProxyEvent {
  const jobId = '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E';
  return {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(method === 'PATCH' ? { 'if-match': '"1"' } : {}) },
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

async function send(method: 'POST' | 'PATCH', flowControl: unknown) {
  const body =
    method === 'POST'
      ? { target: { url: 'https://example.com/hook' }, schedule: { type: 'once' }, flowControl }
      : { flowControl };
  const response = await (method === 'POST' ? createJob : updateJob)(event(method, body), context);
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

describe('the flowControl field at the edge', () => {
  it('names the field and the reason', async () => {
    const { status, body } = await send('POST', { key: 'partner', ratePerSecond: 20_000 });
    expect(status).toBe(400);
    expect(body.error.details).toContainEqual(expect.objectContaining({ field: 'flowControl.ratePerSecond' }));
    const none = await send('PATCH', { key: 'partner' });
    expect(none.status).toBe(400);
    expect(none.body.error.details).toContainEqual(
      expect.objectContaining({
        field: 'flowControl',
        reason: 'needs at least one limit: ratePerSecond or parallelism',
      }),
    );
  });

  it('answers any invalid value with a 400 naming flowControl, never a 5xx (property)', async () => {
    const values = fc.oneof(
      fc.anything(),
      fc.record(
        {
          key: fc.oneof(fc.string({ maxLength: 140 }), fc.anything()),
          ratePerSecond: fc.oneof(fc.double(), fc.integer(), fc.anything()),
          parallelism: fc.oneof(fc.integer({ min: -5, max: 20_000 }), fc.double(), fc.anything()),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        // Judged as the handler receives it: JSON turns NaN and ±Infinity into null, which PATCH
        // reads as "remove flow control" — a valid request, so not a case for this property.
        values.filter((value) => {
          const onTheWire = JSON.parse(JSON.stringify({ value })).value;
          return onTheWire !== undefined && onTheWire !== null && !parseFlowControl(onTheWire).ok;
        }),
        fc.constantFrom('POST' as const, 'PATCH' as const),
        async (value, method) => {
          const { status, body } = await send(method, value);
          expect(status).toBe(400);
          expect(body.error.details.some((problem: { field: string }) => problem.field.startsWith('flowControl'))).toBe(
            true,
          );
        },
      ),
      // Found by this property: a key the JSON parser refuses (prototype poisoning) is named too.
      { numRuns: 150, examples: [[JSON.parse('{"__proto__":0}'), 'POST']] },
    );
  });
});
