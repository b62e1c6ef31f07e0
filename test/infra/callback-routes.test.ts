/**
 * The callback routes of async runs on AWS (issue #20): their own resources without the token
 * authorizer, bodies validated by the gateway, the callback token keys opened (API) and made
 * (executor) only under their KMS encryption context, and the executor told the API's public URL.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK_KEYS_CONTEXT } from '#adapters/dynamodb/callback-key-store';
import { ENV } from '#adapters/environment';
import { ROUTES } from '#handlers/api/routes';
import type { ChronosApp } from '../../lib/app.ts';
import { publicRouteReason } from '../../lib/constructs/scheduler-api.ts';
import { buildChronosAppForProperties, grantsOf, logicalIdOf } from './support/chronos-app.ts';

let chronos: ChronosApp;
let template: Template;
let resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;

beforeAll(() => {
  chronos = buildChronosAppForProperties({ 'chronos:stage': 'dev' });
  template = Template.fromStack(chronos.stateless);
  resources = template.toJSON().Resources;
}, 60_000);

const CALLBACK_ROUTES = [
  'GET /v1/callbacks/{token}',
  'POST /v1/callbacks/{token}/heartbeat',
  'POST /v1/callbacks/{token}/complete',
];
const UNDER_CONTEXT = { StringEquals: { 'kms:EncryptionContext:purpose': CALLBACK_KEYS_CONTEXT.purpose } };

const methodOf = (key: string) => {
  const method = chronos.stateless.api.methods.get(key);
  if (!method) throw new Error(`no method ${key}`);
  return resources[logicalIdOf(method)]?.Properties as Record<string, unknown>;
};

/** The environment variables of a function. */
function envOf(fn: Parameters<typeof logicalIdOf>[0]): Record<string, unknown> {
  const properties = resources[logicalIdOf(fn)]?.Properties as { Environment: { Variables: Record<string, unknown> } };
  return properties.Environment.Variables;
}

/** The role's statements that name a KMS action, with their conditions. */
function kmsStatements(role: Parameters<typeof logicalIdOf>[0]) {
  return grantsOf(template, logicalIdOf(role)).filter((g) => g.actions.some((a) => a.startsWith('kms:')));
}

describe('the API methods without the token authorizer', () => {
  it('are exactly the callback routes and the public health and document routes', () => {
    const open = [...chronos.stateless.api.methods.keys()].filter((key) => methodOf(key).AuthorizationType === 'NONE');
    expect(open.sort()).toEqual([...CALLBACK_ROUTES, 'GET /v1/health', 'GET /v1/openapi.json'].sort());
    for (const key of CALLBACK_ROUTES) expect(methodOf(key).AuthorizerId).toBeUndefined();
    // The run routes a tenant calls keep the authorizer.
    for (const key of ['GET /v1/runs/{runId}', 'POST /v1/runs/{runId}/cancel'])
      expect(methodOf(key).AuthorizationType).toBe('CUSTOM');
  });

  it('validate the token path parameter, and the callback bodies against their models', () => {
    for (const key of CALLBACK_ROUTES) {
      const method = methodOf(key);
      expect(method.RequestValidatorId, key).toBeDefined();
      expect(method.RequestParameters).toEqual({ 'method.request.path.token': true });
    }
    const modelName = (key: string) =>
      JSON.stringify((methodOf(key).RequestModels as Record<string, unknown> | undefined)?.['application/json']);
    expect(modelName('POST /v1/callbacks/{token}/heartbeat')).toMatch(/CallbackHeartbeatModel/);
    expect(modelName('POST /v1/callbacks/{token}/complete')).toMatch(/CallbackCompleteModel/);
    template.hasResourceProperties('AWS::ApiGateway::Model', { Name: 'CallbackHeartbeat' });
    template.hasResourceProperties('AWS::ApiGateway::Model', { Name: 'CallbackComplete' });
  });

  it('state why the token is the credential in their cdk-nag acknowledgement', () => {
    for (const route of ROUTES.filter((r) => r.credential === 'callback-token')) {
      expect(publicRouteReason(route)).toMatch(/callback token is the credential/);
      expect(publicRouteReason(route)).toMatch(/HMAC.*tenant, job, occurrence and attempt/);
    }
    const health = ROUTES.find((r) => r.path === '/v1/health');
    expect(health && publicRouteReason(health)).toMatch(/public by design/);
  });
});

describe('the callback token keys', () => {
  it('are opened by the callback functions with kms:Decrypt under their encryption context only', () => {
    const callbacks = ROUTES.filter((r) => r.credential === 'callback-token');
    expect(callbacks.map((r) => `${r.method} ${r.path}`).sort()).toEqual([...CALLBACK_ROUTES].sort());
    for (const route of callbacks) {
      const fn = chronos.stateless.apiHandlers.functions.get(route.handler);
      expect(kmsStatements(fn?.executionRole as never), route.path).toEqual([
        { actions: ['kms:Decrypt'], resources: [expect.stringMatching(/SecretsKey/)], condition: UNDER_CONTEXT },
      ]);
      expect(envOf(fn as never)[ENV.secretsKmsKeyId]).toBeDefined();
    }
  });

  it('are made by the executor with kms:GenerateDataKey under their context only, beside its plain Decrypt', () => {
    const statements = kmsStatements(chronos.stateless.executor.function.executionRole);
    expect(statements).toEqual(
      expect.arrayContaining([
        { actions: ['kms:Decrypt'], resources: [expect.stringMatching(/SecretsKey/)] },
        {
          actions: ['kms:GenerateDataKey'],
          resources: [expect.stringMatching(/SecretsKey/)],
          condition: UNDER_CONTEXT,
        },
      ]),
    );
    expect(statements).toHaveLength(2);
  });

  it('no other function may use the key under their context, and the run routes none at all', () => {
    const callbackRoles = new Set([
      ...ROUTES.filter((r) => r.credential === 'callback-token').map((r) =>
        logicalIdOf(chronos.stateless.apiHandlers.functions.get(r.handler)?.executionRole as never),
      ),
      logicalIdOf(chronos.stateless.executor.function.executionRole),
    ]);
    const underContext = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes('kms:EncryptionContext:purpose'),
    );
    const roles = underContext.flatMap((policy) => policy.Properties.Roles.map((r: { Ref: string }) => r.Ref));
    expect(new Set(roles)).toEqual(callbackRoles);
    for (const handler of ['get-run', 'cancel-run']) {
      const fn = chronos.stateless.apiHandlers.functions.get(handler);
      expect(kmsStatements(fn?.executionRole as never), handler).toEqual([]);
    }
  });
});

describe('the executor', () => {
  it("knows the API's public stage URL, where workers call back", () => {
    const env = envOf(chronos.stateless.executor.function);
    const url = JSON.stringify(env[ENV.callbackBaseUrl]);
    expect(url).toMatch(/https:\/\//);
    expect(url).toContain(logicalIdOf(chronos.stateless.api.api));
    expect(url).toContain('.execute-api.');
    expect(url).toMatch(/\/dev"/);
    // No API function has it: only the executor hands out callback URLs.
    for (const fn of chronos.stateless.apiHandlers.functions.values()) {
      expect(ENV.callbackBaseUrl in envOf(fn)).toBe(false);
    }
  });
});
