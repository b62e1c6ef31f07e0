/**
 * Each tenant's own signing secrets (signing.ts): created with the tenant, rotated by the tenant
 * (`POST /v1/signing-secrets`) or by an operator. A secret is shown once, when issued; it is
 * stored sealed for its tenant (the envelope encryption of secret headers) and opened only by what
 * signs calls. A rotation keeps the previous secrets signing alongside the new one for an overlap
 * window, so a target can switch to the new secret without a call it cannot verify.
 */
import { NotFoundError } from '../errors.ts';
import type { IdGenerator } from '../ports.ts';
import type { SecretCipher } from '../secrets/secret-cipher.ts';
import { newSigningSecret, SIGNING_SECRET_PREFIX } from '../signing.ts';

/** What a listing shows of a secret: never the secret. */
export interface SigningSecretInfo {
  secretId: string;
  tenantId: string;
  /** The first characters of the secret (`whsec_AbCd`): enough to tell secrets apart, far too little to use. */
  prefix: string;
  createdAt: number;
  /** When it stops signing (set by the rotation that replaced it). */
  expiresAt?: number;
}

/** A secret as stored: sealed for its tenant. */
export interface StoredSigningSecret extends SigningSecretInfo {
  sealed: string;
}

/** A secret just issued: the only moment it exists outside the target that verifies with it. */
export interface IssuedSigningSecret extends SigningSecretInfo {
  secret: string;
}

/** Storage of the secrets, in the tenants table. */
export interface SigningSecretStore {
  /**
   * Writes `secret` and, in the same transaction, sets `expiresAt` on the `expire` secrets and
   * deletes the `remove` ones; NotFoundError when the tenant does not exist.
   */
  rotate(
    secret: StoredSigningSecret,
    expire: ReadonlyArray<{ secretId: string; expiresAt: number }>,
    remove: readonly string[],
  ): Promise<void>;
  /** Every stored secret of the tenant, expired or not. */
  list(tenantId: string): Promise<StoredSigningSecret[]>;
}

export interface SigningSecretDeps {
  secrets: SigningSecretStore;
  cipher: SecretCipher;
  ids: IdGenerator;
}

/** How long the previous secrets keep signing after a rotation, unless told otherwise. */
export const DEFAULT_OVERLAP_HOURS = 24;
export const MAX_OVERLAP_HOURS = 168;
/**
 * Secrets that may sign at once (the new one and the previous ones in their overlap): rotating
 * again and again cannot make calls carry an unbounded header; beyond it the oldest stop at once.
 */
export const MAX_SIGNING_SECRETS = 3;
const VISIBLE_CHARACTERS = SIGNING_SECRET_PREFIX.length + 4;
const HOUR_MS = 3_600_000;

const contextOf = (tenantId: string) => ({ tenantId, purpose: 'chronos-signing-secret' });

const signsAt = (secret: SigningSecretInfo, now: number) => secret.expiresAt === undefined || secret.expiresAt > now;

/** Newest first. */
const newestFirst = <T extends SigningSecretInfo>(secrets: T[]) =>
  [...secrets].sort((a, b) => b.createdAt - a.createdAt || (a.secretId < b.secretId ? 1 : -1));

/**
 * Issues a new secret for `tenantId`; the ones signing now keep signing for `overlapHours` more
 * (default 24, at most 168; 0 stops them now), no later than they would have anyway.
 */
export async function rotateSigningSecret(
  deps: SigningSecretDeps,
  tenantId: string,
  now: number,
  overlapHours: number = DEFAULT_OVERLAP_HOURS,
): Promise<IssuedSigningSecret> {
  if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > MAX_OVERLAP_HOURS)
    throw new Error(`overlapHours must be an integer from 0 to ${MAX_OVERLAP_HOURS}`);
  const existing = await deps.secrets.list(tenantId);
  const until = now + overlapHours * HOUR_MS;
  const active = newestFirst(existing.filter((secret) => signsAt(secret, now)));
  const expire = active.map((secret, index) => ({
    secretId: secret.secretId,
    // The newest MAX - 1 stay in their overlap; older ones stop now.
    expiresAt: index < MAX_SIGNING_SECRETS - 1 ? Math.min(secret.expiresAt ?? until, until) : now,
  }));
  const remove = existing.filter((secret) => !signsAt(secret, now)).map((secret) => secret.secretId);
  const secret = newSigningSecret();
  const info: SigningSecretInfo = {
    secretId: deps.ids.next(now),
    tenantId,
    prefix: secret.slice(0, VISIBLE_CHARACTERS),
    createdAt: now,
  };
  const sealed = await deps.cipher.seal(secret, contextOf(tenantId));
  await deps.secrets.rotate({ ...info, sealed }, expire, remove);
  return { ...info, secret };
}

/** The secrets that sign for the tenant at `now` (ids, prefixes, dates), newest first. */
export async function listSigningSecrets(
  deps: Pick<SigningSecretDeps, 'secrets'>,
  tenantId: string,
  now: number,
): Promise<SigningSecretInfo[]> {
  return newestFirst((await deps.secrets.list(tenantId)).filter((secret) => signsAt(secret, now))).map(
    ({ sealed: _sealed, ...info }) => info,
  );
}

/** A secret opened for signing, with the time it stops signing. */
export interface OpenedSigningSecret {
  secret: string;
  expiresAt?: number;
}

/** Opens the secrets that sign for the tenant at `now`, newest first; NotFoundError when it has none. */
export async function openSigningSecrets(
  deps: Pick<SigningSecretDeps, 'secrets' | 'cipher'>,
  tenantId: string,
  now: number,
): Promise<OpenedSigningSecret[]> {
  const active = newestFirst((await deps.secrets.list(tenantId)).filter((secret) => signsAt(secret, now)));
  if (active.length === 0) throw new NotFoundError(`signing secret of tenant ${tenantId}`);
  return Promise.all(
    active.map(async (stored) => ({
      secret: await deps.cipher.open(stored.sealed, contextOf(tenantId)),
      ...(stored.expiresAt === undefined ? {} : { expiresAt: stored.expiresAt }),
    })),
  );
}
