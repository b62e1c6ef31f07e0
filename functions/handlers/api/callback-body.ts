/**
 * The middleware of the callback routes' bodies, before the use case sees them: bounded in bytes
 * unread, an empty body taken as `{}` (a heartbeat needs no field; a completion then names the
 * missing `status`), parsed, well-formed, and checked against the route's schema; the core's
 * parsers (core/async/heartbeat-body.ts, completion-body.ts) then bound what a schema cannot
 * (UTF-8 bytes, the serialized size of `checkpoint` and `output`).
 */
import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator from '@middy/validator';
import { transpileSchema } from '@middy/validator/transpile';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { bodyLimit } from './body-limit.ts';
import { wellFormedBody } from './well-formed-body.ts';

const emptyBodyIsEmptyObject: MiddlewareObj<APIGatewayProxyEvent> = {
  before: async ({ event }) => {
    if ((event.body ?? '').trim() === '') event.body = '{}';
  },
};

/** The middlewares, in order, for a body of at most `maxBytes` matching `schema`. */
export function callbackBody(schema: object, maxBytes: number): MiddlewareObj<APIGatewayProxyEvent>[] {
  const eventSchema = transpileSchema(
    { type: 'object', required: ['body'], properties: { body: schema } },
    { coerceTypes: false, useDefaults: false },
  );
  return [
    emptyBodyIsEmptyObject,
    bodyLimit(maxBytes),
    httpJsonBodyParser({ disableContentTypeCheck: true }),
    wellFormedBody(),
    validator({ eventSchema }),
  ];
}
