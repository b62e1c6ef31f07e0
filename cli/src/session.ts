/** The API client for a command: the typed client of client/, with the profile's URL and token. */
import { type ChronosClient, createChronosClient } from '../../client/src/index.ts';
import { type Profile, resolveProfile } from './profile.ts';

export function clientOf(profile: Profile): ChronosClient {
  return createChronosClient({
    baseUrl: profile.apiUrl,
    token: profile.token,
    headers: { 'user-agent': 'chronos-cli' },
  });
}

/** The client for the current environment (CHRONOS_API_URL / CHRONOS_TOKEN, else the profile). */
export async function currentClient(): Promise<ChronosClient> {
  return clientOf(await resolveProfile());
}
