/**
 * Is an answer of the API what the OpenAPI document says? The route is found as the gateway finds
 * it (route-matcher.ts); the answer's status must be one the operation lists (a 5xx may fall under
 * `default`), its body must match that response's schema, and the headers the document marks
 * required must be there. Paths no route matches (the gateway's own 404) are not the document's.
 */
import type { Route } from '#handlers/api/routes';
import { matchRoute } from '#local/route-matcher';
import { type DocumentValidator, documentValidator } from './openapi-validator.ts';

export interface ApiExchange {
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

type ResponseObject = {
  $ref?: string;
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema?: unknown }>;
};

export class ResponseConformance {
  private readonly validator: DocumentValidator;
  constructor(
    private readonly routes: readonly Route[],
    validator: DocumentValidator = documentValidator(),
  ) {
    this.validator = validator;
  }

  /** What is off the document in this answer; empty when it conforms (or is no route's). */
  violations(exchange: ApiExchange): string[] {
    const match = matchRoute(this.routes, exchange.method, exchange.path);
    if (!match) return [];
    const operation = this.validator.document.paths[match.route.path]?.[match.route.method.toLowerCase()] as
      | { responses: Record<string, ResponseObject> }
      | undefined;
    const where = `${exchange.method} ${exchange.path} → ${exchange.status}`;
    if (!operation) return [`${where}: the route ${match.route.method} ${match.route.path} is not in the document`];
    const listed = operation.responses[String(exchange.status)];
    const response = listed ?? (exchange.status >= 500 ? operation.responses.default : undefined);
    if (!response) return [`${where}: status not in the document (${Object.keys(operation.responses).join(', ')})`];
    const resolved = this.resolve(response);
    const problems: string[] = [];
    for (const [name, header] of Object.entries(resolved.headers ?? {})) {
      if (header.required && exchange.headers[name.toLowerCase()] === undefined) {
        problems.push(`${where}: required header ${name} missing`);
      }
    }
    const schema = resolved.content?.['application/json']?.schema;
    if (schema !== undefined) {
      let body: unknown;
      try {
        body = JSON.parse(exchange.body);
      } catch {
        return [...problems, `${where}: body is not JSON: ${exchange.body.slice(0, 200)}`];
      }
      for (const problem of this.validator.problems(schema, body)) {
        problems.push(`${where}: body ${problem} — ${exchange.body.slice(0, 300)}`);
      }
    }
    return problems;
  }

  private resolve(response: ResponseObject): ResponseObject {
    if (!response.$ref) return response;
    const name = response.$ref.replace('#/components/responses/', '');
    const components = this.validator.document.components as { responses: Record<string, ResponseObject> };
    const found = components.responses[name];
    if (!found) throw new Error(`no response component ${response.$ref}`);
    return found;
  }
}
