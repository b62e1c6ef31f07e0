/**
 * The OpenAPI 3.1 document of the API, generated from its single sources: the route table
 * (routes.ts: paths, methods, parameters, headers, answers) and the JSON Schemas in schemas/
 * (request and answer bodies). Served by GET /v1/openapi.json and written to client/openapi.json
 * by `npm run openapi`; never edited by hand.
 */
import { type DocumentedRoute, ROUTES } from '../routes.ts';
import { schemaComponents, schemaRef } from './components.ts';
import { parametersOf } from './parameters.ts';
import { errorResponseComponents, responsesOf } from './responses.ts';
import { SCHEMA_FILES } from './schema-files.ts';

export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
};

const TAGS = [
  { name: 'Jobs', description: 'Create, read, change, pause, resume, trigger and cancel jobs' },
  {
    name: 'Workflows',
    description:
      'Tasks with dependencies run as a graph, on a schedule or when triggered: define, change, pause, resume and cancel them; trigger, retry and cancel their runs',
  },
  { name: 'Runs', description: "A job's runs, one run, its cancel, dead letters and their re-drive" },
  {
    name: 'Callbacks',
    description:
      "An async job's worker reports back through its call's `Chronos-Callback-Url`: the token in the path is the only credential",
  },
  { name: 'Signing secrets', description: 'The secrets that sign every call to a target (Standard Webhooks)' },
  { name: 'Monitoring', description: 'Stats, the system view, health, and this document' },
];

/** `create-job` → `createJob`. */
function operationId(handler: string): string {
  return handler.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function operationOf(route: DocumentedRoute): Record<string, unknown> {
  const parameters = parametersOf(route);
  const examples = route.bodySchema ? SCHEMA_FILES[route.bodySchema]?.examples : undefined;
  return {
    operationId: operationId(route.handler),
    summary: route.summary,
    tags: [route.tag],
    // `{}` among the requirements: a call without a token is allowed too.
    security: route.authorized ? [{ bearerAuth: [] }] : route.tokenOptional ? [{}, { bearerAuth: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.bodySchema
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: schemaRef(route.bodySchema),
                ...(Array.isArray(examples)
                  ? { examples: Object.fromEntries(examples.map((value, i) => [`example${i + 1}`, { value }])) }
                  : {}),
              },
            },
          },
        }
      : {}),
    responses: responsesOf(route),
  };
}

export function openApiDocument(routes: readonly DocumentedRoute[] = ROUTES): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operationOf(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Chronos API',
      version: '1',
      summary: 'A serverless, multi-tenant job scheduler',
      description:
        'Schedule HTTP calls once, every N seconds or on a cron expression in a time zone, and follow their runs. Every answer that is not a 2xx has the Error shape.',
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [
      { url: 'http://127.0.0.1:3000', description: 'The local runtime (`npm start`; its default port)' },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}',
        description: 'A deployed stage',
        variables: {
          apiId: { default: 'abcdef1234', description: 'The REST API id (stack output)' },
          region: { default: 'eu-central-1' },
          stage: { default: 'dev' },
        },
      },
    ],
    tags: TAGS,
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: "A tenant's API token (`npm run admin -- tenants create`), or the operator's admin token",
        },
      },
      schemas: schemaComponents(),
      responses: errorResponseComponents(),
    },
  };
}
