import type { APIGatewayProxyResult } from 'aws-lambda';
import type { FieldProblem } from '#core/errors';

/** A JSON response. */
export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** The Chronos error shape: `{ error: { code, message, details: [{ field, reason }] } }`. */
export function errorResponse(statusCode: number, code: string, message: string, details: FieldProblem[] = []) {
  return json(statusCode, { error: { code, message, details } });
}
