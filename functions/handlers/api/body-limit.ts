import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '#core/errors';

/** Rejects request bodies over `maxBytes` before they are parsed. */
export function bodyLimit(maxBytes: number): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: async ({ event }) => {
      const body = event.body ?? '';
      const size = event.isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
      if (size > maxBytes) throw new ValidationError([{ field: 'body', reason: `is larger than ${maxBytes} bytes` }]);
      if (body.trim() === '') throw new ValidationError([{ field: 'body', reason: 'is required' }]);
    },
  };
}
