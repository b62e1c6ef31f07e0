import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '#core/errors';
import { illFormedStrings } from '#core/well-formed';

/**
 * Deepest nesting a body may have. The checks after parsing walk the body recursively
 * (illFormedStrings, the schema validator): about 2,100 levels of `[[[[…` (4 KB) parse, then
 * overflowed the stack there, a 500 caused by a client. Far beyond any body the API takes
 * (DynamoDB maps nest 32 levels).
 */
export const MAX_BODY_DEPTH = 256;

/** True when `value` nests deeper than `limit`; walked without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: unknown; depth: number };
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(node)) stack.push({ node: child, depth: depth + 1 });
  }
  return false;
}

/**
 * After JSON parsing: a body nested past MAX_BODY_DEPTH, or holding a lone surrogate anywhere, is a
 * 400 naming the field (see core/well-formed.ts).
 */
export function wellFormedBody(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: async ({ event }) => {
      if (nestsDeeperThan(event.body as unknown, MAX_BODY_DEPTH))
        throw new ValidationError([{ field: 'body', reason: `must be nested at most ${MAX_BODY_DEPTH} levels deep` }]);
      const problems = illFormedStrings(event.body as unknown);
      if (problems.length > 0) throw new ValidationError(problems);
    },
  };
}
