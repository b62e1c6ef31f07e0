import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '#core/errors';
import { headerOf } from '../header-of.ts';

/** Visible ASCII, as HTTP header values and DynamoDB sort keys both take it without escaping. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,128}$/;

/** The `Idempotency-Key` header (POST /v1/jobs and trigger), validated; undefined when absent. */
export function idempotencyKeyOf(event: APIGatewayProxyEvent): string | undefined {
  const value = headerOf(event, 'idempotency-key');
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(value)) {
    throw new ValidationError([{ field: 'Idempotency-Key', reason: 'must be 1 to 128 visible ASCII characters' }]);
  }
  return value;
}
