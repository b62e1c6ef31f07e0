/**
 * `npm run admin -- <command>`: tenants and API tokens, locally and against a deployed stack.
 *
 *   tenants create <name> [--quota <key>=<value> ...]   tenants list
 *   tokens create <tenantId>   tokens list <tenantId>   tokens revoke <tokenId>
 *   signing-secrets rotate <tenantId> [--overlap-hours <0-168>]   signing-secrets list <tenantId>
 *
 * The tenants table comes from `--table <name>` or CHRONOS_TENANTS_TABLE; DynamoDB from the
 * standard AWS configuration (credentials, region, and AWS_ENDPOINT_URL_DYNAMODB for the local
 * emulator). Signing secrets are sealed with the stage's KMS key (SECRETS_KMS_KEY_ID, the key's
 * id or ARN) or, locally, the key `npm start` prints (SECRETS_LOCAL_KEY). Answers are JSON on
 * stdout; a new token or signing secret appears there once and is never shown again.
 */
import { createDocumentClient } from '#adapters/aws-clients';
import { DynamoSigningSecretRepository } from '#adapters/dynamodb/signing-secret-repository';
import { DynamoTenantRepository } from '#adapters/dynamodb/tenant-repository';
import { ENV } from '#adapters/environment';
import { secretCipherFromEnv } from '#adapters/secrets/secret-cipher-from-env';
import { ulidIds } from '#adapters/ulid-ids';
import { issueToken, listTokens, revokeToken } from '#core/tenants/manage-tenants';
import { onboardTenant } from '#core/tenants/onboard-tenant';
import { QUOTA_KEYS, type TenantQuotas } from '#core/tenants/quotas';
import { listSigningSecrets, rotateSigningSecret } from '#core/tenants/signing-secrets';

export const TABLE_ENV = 'CHRONOS_TENANTS_TABLE';

export const USAGE = `usage: npm run admin -- [--table <tenants table>] <command>
  tenants create <name> [--quota <key>=<value> ...]   keys: ${QUOTA_KEYS.join(', ')}
                                  prints the tenant's first signing secret once
  tenants list
  tokens create <tenantId>        prints the token once
  tokens list <tenantId>          prefixes only
  tokens revoke <tokenId>
  signing-secrets rotate <tenantId> [--overlap-hours <0-168>]
                                  prints the new secret once; the previous ones sign 24 h more (default)
  signing-secrets list <tenantId> prefixes only
The table defaults to $${TABLE_ENV}. Signing secrets are sealed with $SECRETS_KMS_KEY_ID
(deployed) or $SECRETS_LOCAL_KEY (printed by npm start).`;

export interface AdminIo {
  env: Record<string, string | undefined>;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Raised for a command line that names no valid command; the CLI prints usage and exits 2. */
export class UsageError extends Error {}

/** Runs one admin command; resolves with the process exit code. */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const args = [...argv];
  const table = takeOption(args, '--table') ?? io.env[TABLE_ENV];
  const quotas = takeQuotas(args);
  const overlapHours = takeOverlapHours(args);
  if (!table) throw new UsageError(`name the tenants table with --table or ${TABLE_ENV}`);
  const documents = createDocumentClient();
  const deps = {
    tenants: new DynamoTenantRepository(documents, table),
    secrets: new DynamoSigningSecretRepository(documents, table),
    // Built from io.env, not process.env: the cipher is only used when a secret is sealed or listed.
    cipher: secretCipherFromEnv(io.env),
    ids: ulidIds(),
  };
  const print = (value: unknown) => io.out(JSON.stringify(value, null, 2));
  const [noun, verb, subject] = args;
  const now = Date.now();
  const seals = (noun === 'tenants' && verb === 'create') || (noun === 'signing-secrets' && verb === 'rotate');
  // Checked before anything is written: a tenant must not be created without its signing secret.
  if (seals && !io.env[ENV.secretsKmsKeyId] && !io.env[ENV.secretsLocalKey])
    throw new UsageError(
      `set ${ENV.secretsKmsKeyId} (deployed) or ${ENV.secretsLocalKey} (local) to seal signing secrets`,
    );
  try {
    if (noun === 'tenants' && verb === 'create' && subject) {
      const { tenant, signingSecret } = await onboardTenant(deps, subject, now, quotas ? { quotas } : {});
      io.err('This is the only time the signing secret is shown: give it to the tenant now.');
      print({ ...tenant, signingSecret });
    } else if (noun === 'tenants' && verb === 'list' && !subject) {
      print(await deps.tenants.listTenants());
    } else if (noun === 'tokens' && verb === 'create' && subject) {
      const issued = await issueToken(deps, subject, now);
      io.err('This is the only time the token is shown: store it now.');
      print(issued);
    } else if (noun === 'tokens' && verb === 'list' && subject) {
      print(await listTokens(deps, subject));
    } else if (noun === 'signing-secrets' && verb === 'rotate' && subject) {
      const issued = await rotateSigningSecret(deps, subject, now, overlapHours);
      io.err('This is the only time the signing secret is shown: give it to the tenant now.');
      print(issued);
    } else if (noun === 'signing-secrets' && verb === 'list' && subject) {
      print(await listSigningSecrets(deps, subject, now));
    } else if (noun === 'tokens' && verb === 'revoke' && subject) {
      await revokeToken(deps, subject, now);
      print({ tokenId: subject, revoked: true });
    } else {
      throw new UsageError(`unknown command: ${args.join(' ') || '(none)'}`);
    }
    return 0;
  } finally {
    documents.destroy();
  }
}

function takeOption(args: string[], name: string): string | undefined {
  const index = args.indexOf(name);
  if (index < 0) return undefined;
  const value = args[index + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${name} needs a value`);
  args.splice(index, 2);
  return value;
}

function takeOverlapHours(args: string[]): number | undefined {
  const value = takeOption(args, '--overlap-hours');
  if (value === undefined) return undefined;
  if (!/^\d{1,3}$/.test(value) || Number(value) > 168) throw new UsageError('--overlap-hours takes 0 to 168');
  return Number(value);
}

function takeQuotas(args: string[]): Partial<TenantQuotas> | undefined {
  let quotas: Partial<TenantQuotas> | undefined;
  for (let value = takeOption(args, '--quota'); value !== undefined; value = takeOption(args, '--quota')) {
    const [key, raw] = value.split('=');
    if (!(QUOTA_KEYS as readonly string[]).includes(key ?? '') || !/^\d+$/.test(raw ?? '')) {
      throw new UsageError(`--quota takes <key>=<positive integer> with a key of ${QUOTA_KEYS.join(', ')}`);
    }
    quotas = { ...quotas, [key as keyof TenantQuotas]: Number(raw) };
  }
  return quotas;
}
