/**
 * `npm run admin -- <command>`: tenants and API tokens, locally and against a deployed stack.
 *
 *   tenants create <name> [--quota <key>=<value> ...]   tenants list
 *   tokens create <tenantId>   tokens list <tenantId>   tokens revoke <tokenId>
 *
 * The tenants table comes from `--table <name>` or CHRONOS_TENANTS_TABLE; DynamoDB from the
 * standard AWS configuration (credentials, region, and AWS_ENDPOINT_URL_DYNAMODB for the local
 * emulator). Answers are JSON on stdout; a new token appears there once and is never shown again.
 */
import { createDocumentClient } from '#adapters/aws-clients';
import { DynamoTenantRepository } from '#adapters/dynamodb/tenant-repository';
import { ulidIds } from '#adapters/ulid-ids';
import { createTenant, issueToken, listTokens, revokeToken } from '#core/tenants/manage-tenants';
import { QUOTA_KEYS, type TenantQuotas } from '#core/tenants/quotas';

export const TABLE_ENV = 'CHRONOS_TENANTS_TABLE';

export const USAGE = `usage: npm run admin -- [--table <tenants table>] <command>
  tenants create <name> [--quota <key>=<value> ...]   keys: ${QUOTA_KEYS.join(', ')}
  tenants list
  tokens create <tenantId>        prints the token once
  tokens list <tenantId>          prefixes only
  tokens revoke <tokenId>
The table defaults to $${TABLE_ENV}.`;

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
  if (!table) throw new UsageError(`name the tenants table with --table or ${TABLE_ENV}`);
  const documents = createDocumentClient();
  const deps = { tenants: new DynamoTenantRepository(documents, table), ids: ulidIds() };
  const print = (value: unknown) => io.out(JSON.stringify(value, null, 2));
  const [noun, verb, subject] = args;
  const now = Date.now();
  try {
    if (noun === 'tenants' && verb === 'create' && subject) {
      print(await createTenant(deps, subject, now, quotas ? { quotas } : {}));
    } else if (noun === 'tenants' && verb === 'list' && !subject) {
      print(await deps.tenants.listTenants());
    } else if (noun === 'tokens' && verb === 'create' && subject) {
      const issued = await issueToken(deps, subject, now);
      io.err('This is the only time the token is shown: store it now.');
      print(issued);
    } else if (noun === 'tokens' && verb === 'list' && subject) {
      print(await listTokens(deps, subject));
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
