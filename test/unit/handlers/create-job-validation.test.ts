import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '#handlers/api/create-job';

const context = {
  functionName: 'create-job',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

function post(body: string | null): APIGatewayProxyEvent {
  return {
    body,
    headers: { 'content-type': 'application/json' },
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: false,
    path: '/v1/jobs',
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/v1/jobs',
    requestContext: { authorizer: { tenantId: 'tenant-a' } } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

async function send(body: string | null) {
  const response = await handler(post(body), context);
  return { status: response.statusCode, body: JSON.parse(response.body) };
}

// Invalid input is rejected before any AWS call, so these run without emulators or env.
describe('POST /v1/jobs validation', () => {
  it('names a missing target URL', async () => {
    const { status, body } = await send(JSON.stringify({ target: {}, schedule: { type: 'once' } }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'target.url', reason: 'is required' }],
    });
  });

  it('names a string or a field name holding a lone surrogate (no UTF-8 form: DynamoDB and SQS cannot store it)', async () => {
    // JSON escapes are spelled out by hand: JSON.stringify would write the same, but this shows the wire text.
    const url = '{"url":"https://example.com/\\ud800"}';
    const lone = await send(`{"name":"a\\udc00b","target":${url},"schedule":{"type":"once"}}`);
    expect(lone.status).toBe(400);
    expect(lone.body.error.details).toEqual([
      { field: 'name', reason: 'must be well-formed Unicode (it holds a lone surrogate)' },
      { field: 'target.url', reason: 'must be well-formed Unicode (it holds a lone surrogate)' },
    ]);
    const inBody = await send(
      '{"target":{"url":"https://example.com/","body":{"list":["ok","\\ud83d"]}},"schedule":{"type":"once"}}',
    );
    expect(inBody.body.error.details).toEqual([
      { field: 'target.body.list.1', reason: 'must be well-formed Unicode (it holds a lone surrogate)' },
    ]);
    // A pair is one character, well-formed: it reaches the schema check (the body field is free-form).
    const paired = await send('{"name":"\\ud83d\\ude00","target":{},"schedule":{"type":"once"}}');
    expect(paired.body.error.details).toEqual([{ field: 'target.url', reason: 'is required' }]);
  });

  it('answers malformed JSON with 400 on the body', async () => {
    const { status, body } = await send('{"target": ');
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      code: 'INVALID_JSON',
      details: [{ field: 'body', reason: 'is not valid JSON' }],
    });
  });

  it('names a key the JSON parser refuses (prototype poisoning) where it is, not the body as malformed', async () => {
    const proto = await send(
      '{"target":{"url":"https://example.com/hook","headers":{"__proto__":{"x":1}}},"schedule":{"type":"once"}}',
    );
    expect(proto.status).toBe(400);
    expect(proto.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: [{ field: 'target.headers.__proto__', reason: 'is not a field Chronos accepts' }],
    });
    const prototypeKey = await send('{"name":"x","constructor":{"prototype":{}},"schedule":{"type":"once"}}');
    expect(prototypeKey.body.error.details).toEqual([
      { field: 'constructor', reason: 'is not a field Chronos accepts' },
    ]);
  });

  it('answers a missing body with 400', async () => {
    const { status, body } = await send(null);
    expect(status).toBe(400);
    expect(body.error.details).toEqual([{ field: 'body', reason: 'is required' }]);
  });

  it('lists every failing field at once, unknown fields included', async () => {
    const { status, body } = await send(
      JSON.stringify({
        target: { url: 'https://x.example', method: 'FETCH' },
        schedule: { type: 'sometime' },
        timeoutSeconds: 0,
        colour: 'red',
      }),
    );
    expect(status).toBe(400);
    const fields = body.error.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['colour', 'schedule.type', 'target.method', 'timeoutSeconds']);
  });

  it('does not coerce a string into a number', async () => {
    const { status, body } = await send(
      JSON.stringify({ target: { url: 'https://x.example' }, schedule: { type: 'once' }, timeoutSeconds: '30' }),
    );
    expect(status).toBe(400);
    expect(body.error.details).toEqual([{ field: 'timeoutSeconds', reason: 'must be integer' }]);
  });

  it('names an unparseable due date', async () => {
    const { status, body } = await send(
      JSON.stringify({ target: { url: 'https://x.example' }, schedule: { type: 'once', at: 'next tuesday' } }),
    );
    expect(status).toBe(400);
    expect(body.error.details[0]).toMatchObject({ field: 'schedule.at' });
  });

  it('rejects a body over the size limit before parsing it', async () => {
    const { status, body } = await send(
      JSON.stringify({ target: { url: 'https://x.example', body: 'x'.repeat(300_000) }, schedule: { type: 'once' } }),
    );
    expect(status).toBe(400);
    expect(body.error.details[0]).toEqual({ field: 'body', reason: 'is larger than 262144 bytes' });
  });
});
