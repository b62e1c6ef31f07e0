/**
 * A job's definition version: what the API calls its `version` (also its ETag, and what If-Match
 * on PATCH names). It counts the tenant's own changes only — PATCH, pause, resume, cancel — and
 * not the system's bookkeeping: the scanner advancing `nextFireAt`, a quarantine, the completion
 * handler finishing a job, a pause rewinding what it un-materialized. So a client's If-Match
 * guards against another client's change, not against a job firing every second.
 *
 * The job's `version` stays the internal write counter every conditional write is held to
 * (scanner, completion, API alike); it is never shown. Jobs stored before the definition version
 * existed carry none: theirs is their internal version at the time, which is what the API showed
 * for them then. The first write of any kind (the scanner's too) stores it as it stood, so a tag
 * read before that write still matches after it.
 */
import type { Job } from './model.ts';

export function definitionVersionOf(job: Pick<Job, 'version' | 'definitionVersion'>): number {
  return job.definitionVersion ?? job.version;
}
