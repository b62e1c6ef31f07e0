/** GET /v1/openapi.json — this API's OpenAPI 3.1 document; public, like the health route. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { instrumented } from '../observability.ts';
import { httpErrors } from './http-errors.ts';
import { openApiDocument } from './openapi/document.ts';

/** Built once per process: it depends on the code alone. */
let document: string | undefined;

export async function getOpenApi(_event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  document ??= JSON.stringify(openApiDocument());
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
    body: document,
  };
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(getOpenApi).use(httpErrors());
