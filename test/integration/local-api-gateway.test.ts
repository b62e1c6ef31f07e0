import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Route } from '#handlers/api/routes';
import { type ApiHandler, type AuthorizerHandler, type RunningApiGateway, startApiGateway } from '#local/api-gateway';
import { AuthorizerCache } from '#local/aws-fidelity/authorizer-cache';

const routes: Route[] = [
  { method: 'POST', path: '/v1/jobs', handler: 'create', authorized: true, access: {} },
  { method: 'GET', path: '/v1/jobs/{id}', handler: 'get', authorized: true, access: {} },
  { method: 'GET', path: '/v1/jobs/{id}/runs', handler: 'runs', authorized: true, access: {} },
  { method: 'GET', path: '/v1/health', handler: 'health', authorized: false, access: {} },
];

async function errorCode(response: Response): Promise<string> {
  const body = (await response.json()) as { error: { code: string } };
  return body.error.code;
}

describe('startApiGateway', () => {
  const seen: { events: APIGatewayProxyEvent[]; authorizerEvents: APIGatewayRequestAuthorizerEvent[] } = {
    events: [],
    authorizerEvents: [],
  };
  let gateway: RunningApiGateway;

  const echo: ApiHandler = async (event, context) => {
    seen.events.push(event);
    return {
      statusCode: 201,
      headers: { 'content-type': 'application/json', 'x-function': context.functionName },
      body: JSON.stringify({ ok: true }),
    };
  };
  const authorizer: AuthorizerHandler = async (event) => {
    seen.authorizerEvents.push(event);
    const token = event.headers?.Authorization ?? event.headers?.authorization;
    if (token === 'Bearer good') return allowTenantOne(event.methodArn);
    if (token === 'Bearer denied') {
      return {
        principalId: 'tenant-2',
        policyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Deny', Action: 'execute-api:Invoke', Resource: '*' }],
        },
      };
    }
    throw new Error('Unauthorized');
  };

  beforeAll(async () => {
    gateway = await startApiGateway({
      routes,
      authorizer,
      handlers: {
        create: echo,
        get: echo,
        runs: echo,
        health: async () => {
          throw new Error('boom');
        },
      },
      port: 0,
      log: () => {},
    });
  });
  afterAll(() => gateway?.stop());
  beforeEach(() => {
    seen.events.length = 0;
    seen.authorizerEvents.length = 0;
  });

  it('answers 401 in the Chronos error shape when the authorizer says Unauthorized', async () => {
    const response = await fetch(`${gateway.url}/v1/jobs/abc`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Unauthorized', details: [] } });
    expect(seen.events).toHaveLength(0);
  });

  it('answers 403 when the authorizer denies', async () => {
    const response = await fetch(`${gateway.url}/v1/jobs/abc`, { headers: { Authorization: 'Bearer denied' } });
    expect(response.status).toBe(403);
    expect(await errorCode(response)).toBe('FORBIDDEN');
    expect(seen.events).toHaveLength(0);
  });

  it('gives the authorizer a REQUEST event with the method ARN, headers and path parameters', async () => {
    await fetch(`${gateway.url}/v1/jobs/j%201/runs?limit=5`, { headers: { Authorization: 'Bearer good' } });
    const event = seen.authorizerEvents[0];
    expect(event?.type).toBe('REQUEST');
    expect(event?.methodArn).toBe('arn:aws:execute-api:us-east-1:000000000000:local/local/GET/v1/jobs/j%201/runs');
    expect(event?.resource).toBe('/v1/jobs/{id}/runs');
    expect(event?.pathParameters).toEqual({ id: 'j 1' });
    expect(event?.queryStringParameters).toEqual({ limit: '5' });
    expect(event?.headers?.Authorization).toBe('Bearer good');
  });

  it('passes the authorizer context, path parameters and query to the handler and maps its result', async () => {
    const response = await fetch(`${gateway.url}/v1/jobs/job-42/runs?limit=5&tag=a&tag=b`, {
      headers: { Authorization: 'Bearer good', 'X-Trace': 't1' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-function')).toBe('api-runs');
    expect(await response.json()).toEqual({ ok: true });

    const event = seen.events[0] as APIGatewayProxyEvent;
    expect(event.httpMethod).toBe('GET');
    expect(event.path).toBe('/v1/jobs/job-42/runs');
    expect(event.resource).toBe('/v1/jobs/{id}/runs');
    expect(event.pathParameters).toEqual({ id: 'job-42' });
    expect(event.queryStringParameters).toEqual({ limit: '5', tag: 'b' });
    expect(event.multiValueQueryStringParameters).toEqual({ limit: ['5'], tag: ['a', 'b'] });
    expect(event.headers['X-Trace']).toBe('t1');
    expect(event.multiValueHeaders['X-Trace']).toEqual(['t1']);
    expect(event.body).toBeNull();
    expect(event.isBase64Encoded).toBe(false);
    expect(event.requestContext.authorizer).toMatchObject({ tenantId: 'tenant-1', principalId: 'tenant-1' });
    expect(event.requestContext.resourcePath).toBe('/v1/jobs/{id}/runs');
    expect(event.requestContext.stage).toBe('local');
    expect(event.requestContext.identity.sourceIp).toBe('127.0.0.1');
    expect(event.requestContext.requestId).toBe(response.headers.get('x-amzn-requestid'));
    expect(Math.abs(event.requestContext.requestTimeEpoch - Date.now())).toBeLessThan(60_000);
  });

  it('takes query parameters and headers named like Object.prototype members as plain values', async () => {
    const response = await fetch(`${gateway.url}/v1/jobs/job-7/runs?valueOf=&constructor=x&constructor=y`, {
      headers: { Authorization: 'Bearer good', toString: 'z' },
    });
    expect(response.status).toBe(201);
    const event = seen.events.at(-1) as APIGatewayProxyEvent;
    expect(event.queryStringParameters).toEqual({ valueOf: '', constructor: 'y' });
    expect(event.multiValueQueryStringParameters).toEqual({ valueOf: [''], constructor: ['x', 'y'] });
    expect(event.multiValueHeaders.tostring ?? event.multiValueHeaders.toString).toEqual(['z']);
  });

  it('passes the body as a string', async () => {
    const body = JSON.stringify({ target: { url: 'http://example.test' } });
    await fetch(`${gateway.url}/v1/jobs`, {
      method: 'POST',
      body,
      headers: { Authorization: 'Bearer good', 'content-type': 'application/json' },
    });
    expect(seen.events[0]?.body).toBe(body);
    expect(seen.events[0]?.pathParameters).toBeNull();
  });

  it('skips the authorizer on open routes and answers 502 INTERNAL when the handler throws', async () => {
    const response = await fetch(`${gateway.url}/v1/health`);
    expect(response.status).toBe(502);
    expect(await errorCode(response)).toBe('INTERNAL');
    expect(seen.authorizerEvents).toHaveLength(0);
  });

  it('answers 404 NOT_FOUND for unknown paths and methods', async () => {
    const unknownPath = await fetch(`${gateway.url}/v2/nothing`);
    expect(unknownPath.status).toBe(404);
    expect(await errorCode(unknownPath)).toBe('NOT_FOUND');
    const unknownMethod = await fetch(`${gateway.url}/v1/health`, { method: 'DELETE' });
    expect(unknownMethod.status).toBe(404);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for bodies over 10 MB without invoking anything', async () => {
    const response = await fetch(`${gateway.url}/v1/jobs`, {
      method: 'POST',
      body: 'x'.repeat(10 * 1024 * 1024 + 1),
      headers: { Authorization: 'Bearer good' },
    });
    expect(response.status).toBe(413);
    expect(await errorCode(response)).toBe('PAYLOAD_TOO_LARGE');
    expect(seen.authorizerEvents).toHaveLength(0);
  });
});

describe('startApiGateway with the authorizer cache', () => {
  const invoked: string[] = [];
  let gateway: RunningApiGateway;
  const handler: ApiHandler = async () => ({ statusCode: 200, body: '{}' });

  beforeAll(async () => {
    gateway = await startApiGateway({
      routes,
      // As the fake above: a policy that names only the method it was asked about.
      authorizer: async (event) => {
        const token = String(event.headers?.Authorization ?? event.headers?.authorization);
        invoked.push(token);
        if (token !== 'Bearer good') throw new Error('Unauthorized');
        return allowTenantOne(event.methodArn);
      },
      authorizerCache: new AuthorizerCache({ ttlSeconds: 30, identityHeaders: ['authorization'] }),
      handlers: { create: handler, get: handler, runs: handler, health: handler },
      port: 0,
      log: () => {},
    });
  });
  afterAll(() => gateway?.stop());

  it('invokes the authorizer once per token, judges its cached policy for each method, and never caches a 401', async () => {
    const get = (path: string, token: string) => fetch(`${gateway.url}${path}`, { headers: { Authorization: token } });
    expect((await get('/v1/jobs/a', 'Bearer good')).status).toBe(200);
    expect((await get('/v1/jobs/a', 'Bearer good')).status).toBe(200);
    expect(invoked).toEqual(['Bearer good']);
    // The cached policy names the first request's method ARN only: any other resource is denied,
    // as API Gateway denies it (why the real authorizer allows the whole stage: authorizer.ts).
    expect((await get('/v1/jobs/b', 'Bearer good')).status).toBe(403);
    expect((await get('/v1/jobs/a/runs', 'Bearer good')).status).toBe(403);
    expect(invoked).toEqual(['Bearer good']);
    expect((await get('/v1/jobs/a', 'Bearer bad')).status).toBe(401);
    expect((await get('/v1/jobs/a', 'Bearer bad')).status).toBe(401);
    expect(invoked).toEqual(['Bearer good', 'Bearer bad', 'Bearer bad']);
  });
});

/** What the fake authorizers answer for `Bearer good`: a policy that names only the method asked about. */
function allowTenantOne(methodArn: string): APIGatewayAuthorizerResult {
  return {
    principalId: 'tenant-1',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: 'execute-api:Invoke', Resource: methodArn }],
    },
    context: { tenantId: 'tenant-1' },
  };
}
