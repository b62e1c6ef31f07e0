/**
 * The job's version as an HTTP entity tag. Every write bumps the version (the scanner's too, as
 * it moves `nextFireAt`), so the tag changes whenever the job's representation does.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '#core/errors';
import { headerOf } from '../header-of.ts';

/** `"<version>"`, a strong entity tag. */
export function etagOf(version: number): string {
  return `"${version}"`;
}

const VERSION_TAG = /^(?:W\/)?(?:"(\d{1,15})"|(\d{1,15}))$/;

/**
 * The version an `If-Match` header names: `3`, `"3"` or `W/"3"`. Undefined when the header is
 * absent; ValidationError (field `If-Match`) when it names no single version.
 */
export function ifMatchVersionOf(event: APIGatewayProxyEvent): number | undefined {
  const value = headerOf(event, 'if-match');
  if (value === undefined) return undefined;
  const match = VERSION_TAG.exec(value.trim());
  if (!match) {
    throw new ValidationError([{ field: 'If-Match', reason: 'must be the job version (its ETag), e.g. "3"' }]);
  }
  return Number(match[1] ?? match[2]);
}
