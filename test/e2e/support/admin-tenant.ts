/**
 * `npm run admin` against a local Chronos, as `npm start` prints it: a test's way to make tenants
 * and tokens exactly as an operator does (the secret is shown once, in the command's JSON answer).
 */
import { expect } from 'vitest';
import type { LocalChronos } from '#local/chronos-local';
import { runAdmin } from '../../../bin/admin-commands.ts';
import { type Api, apiAs } from './tenant-api.ts';

/** `npm run admin -- <args>` against the local tenants table; its JSON answer (it must succeed). */
// biome-ignore lint/suspicious/noExplicitAny: the command's JSON answer is read field by field
export async function adminCommand(chronos: LocalChronos, ...args: string[]): Promise<any> {
  const out: string[] = [];
  const env = {
    ...process.env,
    CHRONOS_TENANTS_TABLE: chronos.tables.tenants,
    SECRETS_LOCAL_KEY: chronos.secretsLocalKey,
  };
  expect(await runAdmin(args, { env, out: (text) => out.push(text), err: () => undefined })).toBe(0);
  return JSON.parse(out.join('\n'));
}

/** A tenant made by `tenants create` and `tokens create`: its id, API and the signing secret printed once. */
export async function adminTenant(
  chronos: LocalChronos,
  name: string,
): Promise<{ tenantId: string; api: Api; secret: string }> {
  const created = await adminCommand(chronos, 'tenants', 'create', name);
  const token = await adminCommand(chronos, 'tokens', 'create', created.tenantId);
  return { tenantId: created.tenantId, api: apiAs(chronos.apiUrl, token.token), secret: created.signingSecret.secret };
}
