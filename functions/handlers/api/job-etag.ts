/**
 * The job's definition version (#core/definition-version) as an HTTP entity tag. It changes with
 * the job's definition and status as a tenant changes them (PATCH, pause, resume, cancel), not
 * with the scanner's bookkeeping (`nextFireAt`, `updatedAt`), so a client editing a job that fires
 * every second keeps a tag that matches until another client changes the job.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { definitionVersionOf } from '#core/definition-version';
import { ValidationError } from '#core/errors';
import type { Job } from '#core/model';
import { headerOf } from '../header-of.ts';

/** `"<definition version>"`, a strong entity tag. */
export function etagOf(job: Pick<Job, 'version' | 'definitionVersion'>): string {
  return `"${definitionVersionOf(job)}"`;
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
