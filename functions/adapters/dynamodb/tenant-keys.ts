/**
 * Keys of the tenants table (TENANTS_TABLE: string `pk` and `sk`). Everything a tenant owns lives
 * under its `TENANT#<id>` partition; the two token lookups have partitions of their own so that
 * each is a single GetItem without knowing the tenant.
 */
export const tenantKeys = {
  tenant: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'TENANT' }),
  /** Listing record of one token (prefix, dates): Query `begins_with(sk, 'TOKEN#')`. */
  tokenRecord: (tenantId: string, tokenId: string) => ({ pk: `TENANT#${tenantId}`, sk: `TOKEN#${tokenId}` }),
  tokenRecordPrefix: 'TOKEN#',
  /** The authorizer's lookup: the token's SHA-256 → tenant. */
  tokenHash: (sha256Hex: string) => ({ pk: `TOKENHASH#${sha256Hex}`, sk: 'GRANT' }),
  /** Revocation by id: token id → tenant and hash. */
  tokenId: (tokenId: string) => ({ pk: `TOKENID#${tokenId}`, sk: 'TOKEN' }),
  /** One sealed signing secret of the tenant: Query `begins_with(sk, 'SIGNING#')`. */
  signingSecret: (tenantId: string, secretId: string) => ({ pk: `TENANT#${tenantId}`, sk: `SIGNING#${secretId}` }),
  signingSecretPrefix: 'SIGNING#',
  triggerBucket: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'BUCKET#trigger' }),
  runSlots: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'SLOTS#runs' }),
  /** A flow-control key's limits, slots and waiting runs (flow-keys.ts). */
  flowKey: (tenantId: string, key: string) => ({ pk: `TENANT#${tenantId}`, sk: `FLOW#${key}` }),
  /** A POST /v1/jobs Idempotency-Key → the job it created (create-key-repository.ts). */
  createKey: (tenantId: string, key: string) => ({ pk: `TENANT#${tenantId}`, sk: `CREATEKEY#${key}` }),
} as const;

/**
 * The tenant item's count of jobs admitted over the API (job-admissions.ts): their share of the
 * job-status counters' `ACTIVE`, readable by the stats route alone of the tenant item's attributes.
 */
export const ADMITTED_JOBS_ATTRIBUTE = 'admittedJobs';
