/**
 * POST /v1/jobs with an `Idempotency-Key`: a client whose create timed out (the API died after
 * the job was written, a 502/504, a dropped connection) retries with the same key and gets the
 * job the first request created, instead of a second job calling its target twice.
 *
 * The key is bound (per tenant, for 24 h) to a job id drawn before anything else is written, and
 * to the fingerprint of the request body. A retry with the same body finds the binding: when its
 * job exists, that job is the answer (`replayed`: nothing written, no quota taken); when it does
 * not (the first request died after binding, was refused, or is still on its way), the retry
 * creates it under the bound id through the usual admission, so of two requests racing with one
 * key, only one job put succeeds and the other answers that job. The same key with another body
 * is refused (422): it names another request.
 *
 * A binding outlives a refused create (400, 429): the same body may be sent again with the key,
 * another body needs a new key.
 */
import { createHash } from 'node:crypto';
import { IdempotencyKeyReusedError, JobExistsError } from '../errors.ts';
import type { Job } from '../model.ts';
import type { CreateKeyRepository, JobRepository, StoredJob } from '../ports.ts';

/** How long an Idempotency-Key keeps pointing at the job it created (as for triggers). */
export const CREATE_KEY_TTL_SECONDS = 24 * 3600;

export interface CreateJobOnceDeps {
  createKeys: CreateKeyRepository;
  jobs: Pick<JobRepository, 'get'>;
}

/** One create request: its key and its body's fingerprint (requestFingerprint). */
export interface KeyedCreate {
  key: string;
  fingerprint: string;
}

/**
 * SHA-256 (hex) of a JSON body with its object keys sorted: the same request sent again with its
 * keys in another order or other whitespace has the same fingerprint. The values of
 * `target.secretHeaders` are left out (their names stay in): the fingerprint is stored in plain
 * sight in the tenants table, and a hash of a short secret would let whoever reads the table test
 * guesses of it offline, where the secret itself is only ever stored sealed.
 */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(withoutSecretValues(body)))
    .digest('hex');
}

function withoutSecretValues(body: unknown): unknown {
  const target = (body as { target?: { secretHeaders?: unknown } } | null)?.target;
  const secrets = target?.secretHeaders;
  if (secrets === null || typeof secrets !== 'object' || Array.isArray(secrets)) return body;
  const names = Object.fromEntries(Object.keys(secrets).map((name) => [name, '***']));
  return { ...(body as object), target: { ...target, secretHeaders: names } };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Creates the job the key names at most once. `create(jobId)` admits and writes a job under that
 * id (throwing JobExistsError when the id is taken, after giving its admission back); `freshJobId`
 * is the id to bind when the key is new. `replayed` is true when the job was created by an
 * earlier request with the same key.
 */
export async function createJobOnce(
  deps: CreateJobOnceDeps,
  tenantId: string,
  request: KeyedCreate,
  freshJobId: string,
  now: number,
  create: (jobId: string) => Promise<Job>,
): Promise<{ job: StoredJob; replayed: boolean }> {
  const expiresAt = Math.floor(now / 1000) + CREATE_KEY_TTL_SECONDS;
  const earlier = await deps.createKeys.bind(
    tenantId,
    request.key,
    { jobId: freshJobId, fingerprint: request.fingerprint },
    now,
    expiresAt,
  );
  if (earlier && earlier.fingerprint !== request.fingerprint) throw new IdempotencyKeyReusedError();
  const jobId = earlier?.jobId ?? freshJobId;
  if (earlier) {
    const job = await deps.jobs.get(tenantId, jobId);
    if (job) return { job, replayed: true };
  }
  try {
    return { job: await create(jobId), replayed: false };
  } catch (error) {
    // Another request with this key wrote the job first: it is this request's answer too.
    if (!(error instanceof JobExistsError)) throw error;
    const job = await deps.jobs.get(tenantId, jobId);
    if (!job) throw error;
    return { job, replayed: true };
  }
}
