import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '#core/errors';
import { illFormedStrings } from '#core/well-formed';

/** After JSON parsing: a body holding a lone surrogate anywhere is a 400 naming the field (see core/well-formed.ts). */
export function wellFormedBody(): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: async ({ event }) => {
      const problems = illFormedStrings(event.body as unknown);
      if (problems.length > 0) throw new ValidationError(problems);
    },
  };
}
