/**
 * Setup for the run-facing browser tests (job detail, dead letters, health): the public API
 * called as the tenant, a run dead-lettered the way SQS does it (its message handed to the DLQ),
 * and signing a page in.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Page } from 'playwright-core';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../../functions/local/emulators/local-clients.ts';
import { type Api, apiAs } from '../../../test/e2e/support/tenant-api.ts';
import { eventually } from '../../../test/support/http-target.ts';
import type { ConsoleChronos } from './console-chronos.ts';

export { eventually };

export function tenantApi(local: ConsoleChronos): Api {
  return apiAs(local.url, local.chronos.token);
}

/** Creates a job through the API and answers it (throws unless 201). */
export async function createJob(local: ConsoleChronos, body: Record<string, unknown>) {
  const created = await tenantApi(local)('POST', '/v1/jobs', body);
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body as { jobId: string; version: number };
}

export interface ApiRun {
  runId: string;
  status: string;
  attempt: number;
  durationMs: number | null;
}

export async function runsOf(local: ConsoleChronos, jobId: string, query = ''): Promise<ApiRun[]> {
  return (await tenantApi(local)('GET', `/v1/jobs/${jobId}/runs?limit=100${query}`)).body.items;
}

export async function jobStatus(local: ConsoleChronos, jobId: string): Promise<string> {
  return (await tenantApi(local)('GET', `/v1/jobs/${jobId}`)).body.status;
}

/**
 * A run ended DEAD_LETTERED as SQS ends one after too many receives: its message given to the
 * dispatch DLQ, which the dead-letter handler records. Only the DLQ makes a dead letter (a target
 * that fails makes FAILED runs); due `dueInMs` from now, so it is dead before it is called.
 */
export async function deadLetteredRun(
  local: ConsoleChronos,
  path: string,
  options: { dueInMs?: number; interval?: boolean } = {},
): Promise<{ jobId: string; runId: string }> {
  const due = new Date(Date.now() + (options.dueInMs ?? 8_000)).toISOString();
  const { jobId } = await createJob(local, {
    name: `dead ${path}`,
    target: { url: local.target.url(path) },
    schedule: options.interval ? { type: 'interval', everySeconds: 3_600, startAt: due } : { type: 'once', at: due },
  });
  const [run] = await eventually(
    () => runsOf(local, jobId),
    (runs) => runs.length > 0,
    10_000,
  );
  if (!run) throw new Error('no run materialized');
  const sqs = new SQSClient({
    endpoint: local.chronos.endpoints.sqs,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const message = {
    tenantId: local.chronos.tenantId,
    jobId,
    scheduledFor: Date.parse((run as unknown as { scheduledFor: string }).scheduledFor),
    attempt: 1,
    runId: run.runId,
  };
  await sqs.send(
    new SendMessageCommand({ QueueUrl: local.chronos.queues.deadLetter.url, MessageBody: JSON.stringify(message) }),
  );
  sqs.destroy();
  await eventually(
    async () => (await tenantApi(local)('GET', '/v1/dead-letters?limit=100')).body.items as ApiRun[],
    (items) => items.some((item) => item.runId === run.runId),
    15_000,
  );
  return { jobId, runId: run.runId };
}

/** Signs the page in with `token` through the sign-in form, landing on `path`. */
export async function signIn(page: Page, token: string, path: string): Promise<void> {
  await page.goto(path);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/sign-in', { timeout: 15_000 });
}
