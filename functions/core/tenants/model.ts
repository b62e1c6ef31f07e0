/** Tenants and their API tokens, as stored and as the admin command shows them. */
import type { TenantQuotas } from './quotas.ts';

export interface Tenant {
  tenantId: string;
  name: string;
  createdAt: number;
  /** Overrides of the stage's default quotas for this tenant only. */
  quotas?: Partial<TenantQuotas>;
}

/** What a listing shows of a token: never the token, never its hash. */
export interface ApiTokenInfo {
  tokenId: string;
  tenantId: string;
  /** The first characters of the token (`chronos_AbCdEfGh`). */
  prefix: string;
  createdAt: number;
  revokedAt?: number;
}

/** A token as the authorizer finds it by its hash. */
export interface TokenGrant {
  tenantId: string;
  tokenId: string;
  revokedAt?: number;
}

/** A token just issued: the only moment the token itself exists outside its holder. */
export interface IssuedToken extends ApiTokenInfo {
  token: string;
}
