/**
 * A body nested deep enough to parse (middy's JSON parser gives up past about 2,400 levels) but
 * too deep for the recursive checks after it (the well-formed check overflowed the stack from
 * about 2,100): a 400 naming the body on every body route, never a 500 (well-formed-body.ts).
 * Invalid input is refused before any AWS call: no emulators or environment needed.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core/errors';
import { handler as complete } from '#handlers/api/callback-complete';
import { handler as heartbeat } from '#handlers/api/callback-heartbeat';
import { handler as createJob } from '#handlers/api/create-job';
import { MAX_BODY_DEPTH, nestsDeeperThan, wellFormedBody } from '#handlers/api/well-formed-body';

const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

function post(body: string): APIGatewayProxyEvent {
  return {
    body,
    headers: { 'content-type': 'application/json' },
    multiValueHeaders: {},
    httpMethod: 'POST',
    isBase64Encoded: false,
    path: '/',
    pathParameters: { token: 'not-a-token' },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    resource: '/',
    requestContext: { authorizer: { tenantId: 'tenant-a' } } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
const ROUTES: Array<[string, Handler, (nested: string) => string]> = [
  ['POST /v1/jobs', createJob as Handler, (nested) => `{"name":${nested}}`],
  ['POST /v1/callbacks/{token}/complete', complete as Handler, (nested) => `{"status":"succeeded","output":${nested}}`],
  ['POST /v1/callbacks/{token}/heartbeat', heartbeat as Handler, (nested) => `{"checkpoint":${nested}}`],
];

describe('deeply nested bodies', () => {
  it.each(ROUTES)('%s answers 400 at every depth up to where parsing gives up', async (_route, handler, bodyOf) => {
    for (let depth = 1_000; depth <= 3_000; depth += 50) {
      const response = await handler(post(bodyOf(`${'['.repeat(depth)}${']'.repeat(depth)}`)), context);
      expect(response.statusCode, `depth ${depth}: ${response.body.slice(0, 200)}`).toBe(400);
    }
  });

  it('the well-formed check refuses a parsed body of any depth with a 400 problem, never a stack overflow', async () => {
    const event = { body: JSON.parse(`{"output":${'['.repeat(100_000)}${']'.repeat(100_000)}}`) };
    const check = wellFormedBody().before as (request: { event: unknown }) => Promise<void>;
    const refusal = await check({ event }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ValidationError);
    expect((refusal as ValidationError).details).toEqual([
      { field: 'body', reason: `must be nested at most ${MAX_BODY_DEPTH} levels deep` },
    ]);
  });

  it('measures depth without recursion, past any stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(nestsDeeperThan(deep, MAX_BODY_DEPTH)).toBe(true);
    // Four levels of objects and arrays, then five.
    expect(nestsDeeperThan({ a: [{ b: [1, 'x'] }] }, 4)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: [1, {}] }] }, 4)).toBe(true);
  });
});
