/** What the tenant and quota use cases need from storage; DynamoDB adapters implement them. */
import type { ApiTokenInfo, IssuedToken, Tenant, TokenGrant } from './model.ts';
import type { BucketLimits } from './token-bucket.ts';

export interface TenantRepository {
  /** Writes a new tenant; fails if the id exists. */
  createTenant(tenant: Tenant): Promise<void>;
  getTenant(tenantId: string): Promise<Tenant | undefined>;
  listTenants(): Promise<Tenant[]>;
  /** Stores a token (only its hash) for an existing tenant; throws NotFoundError for an unknown tenant. */
  saveToken(token: IssuedToken): Promise<void>;
  /** A tenant's tokens, oldest first: prefixes only. */
  listTokens(tenantId: string): Promise<ApiTokenInfo[]>;
  /** Revokes a token by id; false when no such token exists. Revoking twice keeps the first time. */
  revokeToken(tokenId: string, now: number): Promise<boolean>;
  /** The tenant a token hash belongs to, with its revocation; one point read. */
  findGrant(tokenSha256: string): Promise<TokenGrant | undefined>;
}

/** A per-tenant token bucket (create rate, trigger rate). */
export interface RateLimiter {
  /**
   * Takes `count` tokens (default 1; at most the burst, see tokensFor), all or none; when there
   * are not enough, how many seconds until there are.
   */
  take(
    tenantId: string,
    limits: BucketLimits,
    now: number,
    count?: number,
  ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
}

/** What admitting one new job decided: refused by the create bucket (when to retry) or the active-job quota. */
export type AdmissionDecision =
  | { admitted: true }
  | { admitted: false; reason: 'rate'; retryAfterSeconds: number }
  | { admitted: false; reason: 'quota' };

/** The tenant's create bucket and active-job quota, judged together: a token and a place, or neither. */
export interface JobAdmissions {
  /** Takes one token of the create bucket and one place under `maxActiveJobs`, both or neither. */
  admit(tenantId: string, limits: BucketLimits, maxActiveJobs: number, now: number): Promise<AdmissionDecision>;
  /** Gives a place back (the job was not created after all). */
  release(tenantId: string): Promise<void>;
}

/**
 * Per-tenant in-flight slots of the executors. A slot carries an expiry (the run's lease), so a
 * slot held by an executor that died is reclaimed once it expires instead of leaking.
 */
export interface RunSlots {
  /** Takes a slot for `runId` if fewer than `cap` unexpired slots are held; false otherwise. */
  acquire(tenantId: string, runId: string, cap: number, expiresAt: number, now: number): Promise<boolean>;
  release(tenantId: string, runId: string): Promise<void>;
}
