/**
 * The answers off the OpenAPI document seen in this test file since the last look
 * (openapi-conformance-setup.ts fails the test that caused them).
 */

import { ROUTES } from '#handlers/api/routes';
import type { GatewayExchange } from '#local/api-gateway';
import { matchRoute } from '#local/route-matcher';
import { ResponseConformance } from './openapi-conformance.ts';

let conformance: ResponseConformance | undefined;
const violations: string[] = [];

/** Records what is off the document in this answer (the document is built on first use). */
export function checkAgainstDocument(exchange: GatewayExchange): void {
  conformance ??= new ResponseConformance(ROUTES);
  violations.push(...conformance.violations(exchange));
}

/**
 * The check for a local Chronos whose API runs these test doubles (handler names): the document
 * describes the real handlers, so only their answers are checked.
 */
export function checkRealHandlers(doubles: readonly string[]): (exchange: GatewayExchange) => void {
  if (doubles.length === 0) return checkAgainstDocument;
  return (exchange) => {
    const match = matchRoute(ROUTES, exchange.method, exchange.path);
    if (match && !doubles.includes(match.route.handler)) checkAgainstDocument(exchange);
  };
}

/** The violations recorded since the last call, forgotten. */
export function takeViolations(): string[] {
  return violations.splice(0, violations.length);
}

/** Throws, naming them, when answers off the document were recorded since the last look. */
export function failOnViolations(): void {
  const seen = takeViolations();
  if (seen.length > 0) throw new Error(`API answers off the OpenAPI document:\n${seen.slice(0, 20).join('\n')}`);
}
