/**
 * Where the CLI finds the API and its token: `CHRONOS_API_URL` / `CHRONOS_TOKEN` when set, else the
 * profile `chronos login` wrote to `$XDG_CONFIG_HOME/chronos/profile.json` (default
 * `~/.config/chronos/profile.json`). The file holds a token, so it is created 0600 in a 0700
 * folder, and tightened to 0600 again when it is rewritten.
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './cli-error.ts';

export interface Profile {
  apiUrl: string;
  token: string;
}

type Env = Record<string, string | undefined>;

/** The profile file's path for this environment. */
export function profilePath(env: Env = process.env): string {
  const config = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), '.config');
  return join(config, 'chronos', 'profile.json');
}

/** Writes the profile, readable by its owner only. */
export async function saveProfile(profile: Profile, env: Env = process.env): Promise<string> {
  const path = profilePath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
  // `mode` applies only when the file is created: an older, looser file is tightened too.
  await chmod(path, 0o600);
  return path;
}

async function readProfile(env: Env): Promise<Partial<Profile>> {
  let text: string;
  try {
    text = await readFile(profilePath(env), 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as Partial<Profile>;
    return {
      ...(typeof parsed.apiUrl === 'string' ? { apiUrl: parsed.apiUrl } : {}),
      ...(typeof parsed.token === 'string' ? { token: parsed.token } : {}),
    };
  } catch {
    throw new CliError(`${profilePath(env)} is not valid JSON: run chronos login again`);
  }
}

/** The API URL and token to use: the environment's over the profile's; an error when either is missing. */
export async function resolveProfile(env: Env = process.env): Promise<Profile> {
  const stored = await readProfile(env);
  const apiUrl = env.CHRONOS_API_URL?.trim() || stored.apiUrl;
  const token = env.CHRONOS_TOKEN?.trim() || stored.token;
  if (!apiUrl || !token) {
    throw new CliError(
      'not logged in: run chronos login --api-url <url> --token <token> (or set CHRONOS_API_URL and CHRONOS_TOKEN)',
    );
  }
  return { apiUrl, token };
}
