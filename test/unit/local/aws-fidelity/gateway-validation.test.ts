/**
 * The local gateway's request validation is read from the synthesized template: every route's
 * method is found with its validator, path parameters and model, and a model the template makes
 * stricter is enforced as written (so the checks are the template's, not a copy of schemas/).
 */
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#handlers/api/routes';
import { type GatewayRequestChecks, gatewayRequestChecks } from '#local/aws-fidelity/gateway-models';
import { synthesizedStacks } from '#local/aws-fidelity/synthesized-stacks';
import { type GatewayRequest, gatewayRequestValidator } from '#local/gateway-validation';

const request = (routeKey: string, body: string | null, headers: Record<string, string> = {}): GatewayRequest => ({
  routeKey,
  headers: { 'content-type': 'application/json', ...headers },
  query: new URLSearchParams(),
  pathParameters: { id: 'job-1' },
  body,
});

async function templateChecks(): Promise<GatewayRequestChecks> {
  return gatewayRequestChecks((await synthesizedStacks()).stateless);
}

describe('gateway checks from the synthesized template', () => {
  it('finds every route of the route table with its validator, path parameters and body model', async () => {
    const checks = await templateChecks();
    expect([...checks.keys()].sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of ROUTES) {
      const check = checks.get(`${route.method} ${route.path}`);
      expect(check?.validateBody, route.path).toBe(true);
      expect(check?.jsonModel !== undefined, `${route.method} ${route.path} has a model`).toBe(
        route.bodySchema !== undefined,
      );
      const parameters = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => `method.request.path.${name}`);
      expect(check?.requiredParameters.sort()).toEqual(parameters.sort());
    }
  });

  it('enforces a model as the template writes it: a stricter model refuses what the deployed one lets through', async () => {
    const { stateless } = await synthesizedStacks();
    const strict = structuredClone(stateless);
    const createJob = Object.values(strict.Resources).find(
      (r) => r.Type === 'AWS::ApiGateway::Model' && r.Properties?.Name === 'CreateJob',
    );
    const schema = createJob?.Properties?.Schema as Record<string, unknown> | undefined;
    expect(schema).toBeDefined();
    const body = JSON.stringify({ schedule: { type: 'once' } });
    const deployed = gatewayRequestValidator(gatewayRequestChecks(stateless));
    expect(deployed(request('POST /v1/jobs', body))).toBeUndefined();

    (schema as Record<string, unknown>).required = ['target'];
    const stricter = gatewayRequestValidator(gatewayRequestChecks(strict));
    expect(stricter(request('POST /v1/jobs', body))).toEqual({
      kind: 'BAD_REQUEST_BODY',
      reason: expect.stringContaining('target'),
    });
  });

  it('validates only the content type that has a model, and a missing body as {}', async () => {
    const validate = gatewayRequestValidator(await templateChecks());
    expect(validate(request('POST /v1/jobs', '{oops'))).toEqual({
      kind: 'BAD_REQUEST_BODY',
      reason: 'Invalid request body',
    });
    expect(validate(request('POST /v1/jobs', '[]'))?.kind).toBe('BAD_REQUEST_BODY');
    // No Content-Type counts as application/json; a type without a model passes to the function.
    expect(validate({ ...request('POST /v1/jobs', '{oops'), headers: {} })?.kind).toBe('BAD_REQUEST_BODY');
    expect(validate(request('POST /v1/jobs', '{oops', { 'content-type': 'text/plain' }))).toBeUndefined();
    expect(
      validate(request('POST /v1/jobs', '{oops', { 'content-type': 'application/json; charset=utf-8' }))?.kind,
    ).toBe('BAD_REQUEST_BODY');
    expect(validate(request('POST /v1/signing-secrets', null))).toBeUndefined();
  });

  it('refuses a blank required path parameter with BAD_REQUEST_PARAMETERS', async () => {
    const validate = gatewayRequestValidator(await templateChecks());
    expect(validate({ ...request('GET /v1/jobs/{id}', null), pathParameters: { id: '' } })).toEqual({
      kind: 'BAD_REQUEST_PARAMETERS',
      reason: 'Missing required request parameters: [id]',
    });
    expect(validate(request('GET /v1/jobs/{id}', null))).toBeUndefined();
  });
});
