/**
 * Shared by the jobs list and job form browser tests: signing a page in, a tenant of its own per
 * test (so one test's jobs never page or filter into another's), and the typed client for setting
 * up and checking through the API what the UI did.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { type ChronosClient, type CreateJob, createChronosClient, type Job } from '../../client/src/index.ts';
import type { ConsoleChronos } from './support/console-chronos.ts';

export interface TestTenant {
  token: string;
  client: ChronosClient;
}

export function clientFor(local: ConsoleChronos, token: string): ChronosClient {
  return createChronosClient({ baseUrl: local.url, token });
}

/** A new tenant with its own token, through the same administration `npm run admin` uses. */
export async function newTenant(local: ConsoleChronos, name: string): Promise<TestTenant> {
  const { token } = await local.chronos.tenants.create(name);
  return { token: token.token, client: clientFor(local, token.token) };
}

/** Signs the page in with a tenant token and waits for the jobs page. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe('/jobs');
}

/** Creates a job through the API; fails the test on any refusal. */
export async function createJob(client: ChronosClient, body: CreateJob): Promise<Job> {
  const created = await client.jobs.create(body);
  if (created.error) throw new Error(`create refused: ${JSON.stringify(created.error)}`);
  return created.data;
}

export async function getJob(client: ChronosClient, id: string): Promise<Job> {
  const job = await client.jobs.get(id);
  if (job.error) throw new Error(`get refused: ${JSON.stringify(job.error)}`);
  return job.data;
}

/** A cron job that fires on 1 January only: the scanner leaves it (and its version) alone during a test. */
export function quietJob(name: string, url: string): CreateJob {
  return { name, target: { url }, schedule: { type: 'cron', expression: '0 3 1 1 *', timezone: 'UTC' } };
}
