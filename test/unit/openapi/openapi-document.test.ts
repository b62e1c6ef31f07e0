/**
 * The OpenAPI document: valid by Redocly's recommended rules, exactly the route table's routes,
 * every example valid against its schema, every schema file in it, and the committed copy
 * (client/openapi.json) current.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '#handlers/api/openapi/document';
import { SCHEMA_FILES } from '#handlers/api/openapi/schema-files';
import { ROUTES } from '#handlers/api/routes';
import { OPENAPI_FILE, openApiFileText } from '../../../client/scripts/write-openapi.ts';
import { documentValidator } from '../../support/openapi-validator.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const document = openApiDocument();
const validator = documentValidator(document);

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Every example in the document with the schema it must match, and where it is. */
function examplesIn(doc: Node): Array<{ where: string; schema: unknown; value: unknown }> {
  const found: Array<{ where: string; schema: unknown; value: unknown }> = [];
  const visit = (node: unknown, where: string, inSchema: boolean): void => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) visit(item, `${where}/${i}`, inSchema);
      return;
    }
    if (!isNode(node)) return;
    // Schema objects: JSON Schema `examples` is a list of values.
    if (inSchema && Array.isArray(node.examples)) {
      for (const [i, value] of node.examples.entries())
        found.push({ where: `${where}/examples/${i}`, schema: node, value });
    }
    // Media types, parameters and headers: `example`, or `examples` named, each `{ value }`, beside a `schema`.
    if (!inSchema && 'schema' in node) {
      if ('example' in node) found.push({ where: `${where}/example`, schema: node.schema, value: node.example });
      if (isNode(node.examples)) {
        for (const [name, example] of Object.entries(node.examples)) {
          found.push({ where: `${where}/examples/${name}`, schema: node.schema, value: (example as Node).value });
        }
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'examples' || key === 'example') continue;
      visit(value, `${where}/${key}`, inSchema || key === 'schema' || where === '#/components/schemas');
    }
  };
  visit(doc, '#', false);
  return found;
}

describe('the OpenAPI document', () => {
  it('has no problem by Redocly’s recommended rules', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('the lint fails on a broken document (a reference to no schema)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const broken = structuredClone(document) as Node & { paths: Record<string, Record<string, Node>> };
    (broken.paths['/v1/jobs']?.post?.requestBody as Node).content = {
      'application/json': { schema: { $ref: '#/components/schemas/Nowhere' } },
    };
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: 'openapi.json', config });
    expect(problems.filter((p) => p.severity === 'error').length).toBeGreaterThan(0);
  });

  it('describes every route of the route table, and nothing else', () => {
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('asks for the bearer token on every authorized route, and for none on the public ones', () => {
    for (const route of ROUTES) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()] as Node;
      const security = operation.security as Node[];
      // No requirement at all, or an empty one among them: a call without a token is allowed.
      const anonymous = security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0);
      expect(anonymous, `${route.method} ${route.path}`).toBe(!route.authorized);
    }
    expect(document.paths['/v1/openapi.json']?.get?.security).toEqual([]);
  });

  it('documents the callback routes as public, their path token as the credential and its 401 as a token refusal', () => {
    const callbacks = ROUTES.filter((r) => r.credential === 'callback-token');
    expect(callbacks.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /v1/callbacks/{token}',
      'POST /v1/callbacks/{token}/complete',
      'POST /v1/callbacks/{token}/heartbeat',
    ]);
    for (const route of callbacks) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()] as Node;
      expect(operation.security).toEqual([]);
      expect(operation.tags).toEqual(['Callbacks']);
      const [token] = operation.parameters as Node[];
      expect(token).toMatchObject({ name: 'token', in: 'path', required: true });
      expect(String(token?.description)).toMatch(/only credential/);
      const responses = operation.responses as Record<string, Node>;
      expect(responses['401']).toEqual({ $ref: '#/components/responses/InvalidCallbackToken' });
      expect(responses['403']).toBeUndefined();
    }
    const refusal = (document.components as { responses: Record<string, Node> }).responses.InvalidCallbackToken;
    expect(JSON.stringify(refusal)).toContain('INVALID_CALLBACK_TOKEN');
    // A route with a bearer token keeps the gateway's 401.
    const getRun = document.paths['/v1/runs/{runId}']?.get as Node;
    expect((getRun.responses as Record<string, Node>)['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
  });

  it('lists the query parameters each listing handler accepts, and the headers it reads', () => {
    const parameters = (method: string, path: string) =>
      (((document.paths[path]?.[method] as Node | undefined)?.parameters ?? []) as Node[]).map(
        (p) => `${p.in}:${p.name}`,
      );
    expect(parameters('get', '/v1/jobs')).toEqual([
      'query:status',
      'query:type',
      'query:name',
      'query:limit',
      'query:cursor',
    ]);
    expect(parameters('get', '/v1/jobs/{id}/runs')).toEqual([
      'path:id',
      'query:status',
      'query:from',
      'query:to',
      'query:limit',
      'query:cursor',
    ]);
    expect(parameters('patch', '/v1/jobs/{id}')).toEqual(['path:id', 'header:If-Match']);
    expect(parameters('post', '/v1/jobs')).toEqual(['header:Idempotency-Key']);
    const getJob = (document.paths['/v1/jobs/{id}']?.get as Node | undefined)?.responses as Record<string, Node>;
    expect(Object.keys(getJob['200']?.headers as Node)).toEqual(['ETag']);
  });

  it('has examples, each valid against its schema', () => {
    const examples = examplesIn(document);
    // Every answer schema, request body, path parameter and header brings at least one.
    expect(examples.length).toBeGreaterThan(40);
    for (const { where, schema, value } of examples) {
      expect(validator.problems(schema, value), where).toEqual([]);
    }
  });

  it('the example check fails on an example its schema refuses', () => {
    const job = (document.components as { schemas: Record<string, Node> }).schemas.Job as Node;
    const [example] = job.examples as Node[];
    expect(validator.problems({ $ref: '#/components/schemas/Job' }, { ...example, status: 'SLEEPING' })).not.toEqual(
      [],
    );
  });

  it('holds every schema under schemas/', () => {
    const files = readdirSync(join(ROOT, 'schemas')).filter((f) => f.endsWith('.json'));
    expect(Object.keys(SCHEMA_FILES).sort()).toEqual(files.sort());
    for (const file of files) {
      expect(SCHEMA_FILES[file]).toEqual(JSON.parse(readFileSync(join(ROOT, 'schemas', file), 'utf8')));
    }
  });

  it('is committed current as client/openapi.json (npm run openapi)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiFileText());
  });
});
