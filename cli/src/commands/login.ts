/**
 * `chronos login --api-url <url> --token <token>`: checks the token against the API (unless
 * --no-verify), then keeps both in the profile file (0600). Prints where the profile was written.
 */
import type { Command } from 'commander';
import { UsageError } from '../cli-error.ts';
import { dataOf } from '../output.ts';
import { saveProfile } from '../profile.ts';
import { clientOf } from '../session.ts';
import { contextOf } from './context.ts';

export function registerLogin(program: Command): void {
  program
    .command('login')
    .description('save the API URL and a token in your profile (~/.config/chronos/profile.json, mode 0600)')
    .option('--api-url <url>', 'the API, e.g. http://localhost:3000 (default: CHRONOS_API_URL)')
    .option('--token <token>', 'a tenant API token (default: CHRONOS_TOKEN)')
    .option('--no-verify', 'save without checking the token against the API')
    .action(async (flags: { apiUrl?: string; token?: string; verify: boolean }, command: Command) => {
      const { out } = contextOf(command);
      const apiUrl = (flags.apiUrl ?? process.env.CHRONOS_API_URL)?.trim();
      const token = (flags.token ?? process.env.CHRONOS_TOKEN)?.trim();
      if (!apiUrl) throw new UsageError('--api-url is required');
      if (!/^https?:\/\/[^\s]+$/.test(apiUrl)) throw new UsageError('--api-url must be an http(s) URL');
      if (!token) throw new UsageError('--token is required');
      const profile = { apiUrl: apiUrl.replace(/\/+$/, ''), token };
      if (flags.verify) {
        // The stats route answers any valid token (a tenant's or the admin's) and changes nothing.
        dataOf(await clientOf(profile).monitoring.stats({ window: '5m' }));
      }
      const path = await saveProfile(profile);
      out.result({ apiUrl: profile.apiUrl, profile: path }, () => `Logged in to ${profile.apiUrl} (profile: ${path})`);
    });
}
