/**
 * The jobs list in a real browser: schedules in words with their zone, status, next fire and last
 * run; filters and the page cursor in the URL (a reload keeps them, Back walks back); and bulk
 * pause, resume and cancel that state the count before acting and report each refusal. Each test
 * has a tenant of its own, so the rows it sees are exactly the jobs it made.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../client/src/index.ts';
import { createJob, getJob, newTenant, quietJob, signIn } from './jobs-helpers.ts';
import { launchBrowser, openPage, screenshot, seriousViolations } from './support/browser.ts';
import { type ConsoleChronos, startConsoleChronos } from './support/console-chronos.ts';

let local: ConsoleChronos;
let browser: Browser;

beforeAll(async () => {
  [local, browser] = await Promise.all([startConsoleChronos(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await local?.stop();
});

/** The names in the table's rows, in order (each row's header cell is its name). */
async function rowNames(page: Page): Promise<string[]> {
  return page.locator('tbody th[scope="row"]').allTextContents();
}

const waitForRows = (page: Page, names: string[]) =>
  expect.poll(() => rowNames(page), { timeout: 15_000 }).toEqual(names);

describe('jobs list', () => {
  it('shows each job with its schedule in words and zone, status, next fire and last run', async () => {
    const { token, client } = await newTenant(local, 'list');
    const url = local.target.url('/ok');
    const cron = await createJob(client, {
      name: 'weekday-report',
      target: { url },
      schedule: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' },
    });
    await createJob(client, { name: 'ping', target: { url }, schedule: { type: 'interval', everySeconds: 300 } });
    const once = await createJob(client, { name: 'one-shot', target: { url }, schedule: { type: 'once' } });
    await expect
      .poll(async () => (await getJob(client, once.jobId)).latestRun?.status, { timeout: 30_000 })
      .toBe('SUCCEEDED');

    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, token);
      await waitForRows(page, ['weekday-report', 'ping', 'one-shot']);
      const row = (name: string) => page.getByRole('row', { name: new RegExp(`^Select ${name}\\b`) });
      expect(await row('weekday-report').textContent()).toContain('At 09:00, Monday through Friday (Europe/Berlin)');
      expect(await row('weekday-report').textContent()).toContain('0 9 * * 1-5');
      expect(await row('weekday-report').locator('time').first().getAttribute('datetime')).toBe(cron.nextFireAt);
      expect(await row('ping').textContent()).toContain('every 5 minutes');
      await expect.poll(() => row('one-shot').textContent(), { timeout: 15_000 }).toContain('SUCCEEDED');
      expect(await row('one-shot').textContent()).toContain('once at');
      expect(await row('one-shot').textContent()).toContain('COMPLETED');
      expect(await page.getByRole('link', { name: 'New job' }).getAttribute('href')).toBe('/jobs/new');
      expect(await page.getByRole('link', { name: 'weekday-report' }).getAttribute('href')).toBe(`/jobs/${cron.jobId}`);

      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'jobs-list');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('says when there are no jobs yet, and when the list cannot be loaded, with a retry', async () => {
    const { token, client } = await newTenant(local, 'states');
    const { context, page } = await openPage(browser, local.url);
    try {
      await signIn(page, token);
      await expect.poll(() => page.getByText('No jobs yet.').count(), { timeout: 15_000 }).toBe(1);

      await createJob(client, quietJob('after-outage', local.target.url('/ok')));
      await page.route('**/v1/jobs?*', (route) =>
        route.fulfill({
          status: 500,
          contentType: 'application/json',
          body: JSON.stringify({ error: { code: 'INTERNAL', message: 'The jobs table is unavailable', details: [] } }),
        }),
      );
      await page.reload();
      const alert = page.getByRole('alert');
      await expect.poll(() => alert.textContent(), { timeout: 20_000 }).toContain('Could not load the jobs');
      expect(await alert.textContent()).toContain('The jobs table is unavailable');
      // The page around it stays usable.
      expect(await page.getByRole('link', { name: 'New job' }).count()).toBe(1);
      await page.unroute('**/v1/jobs?*');
      await alert.getByRole('button', { name: 'Try again' }).click();
      await waitForRows(page, ['after-outage']);
    } finally {
      await context.close();
    }
  });

  it('filters by status, schedule type and name prefix, kept in the URL across a reload', async () => {
    const { token, client } = await newTenant(local, 'filters');
    const url = local.target.url('/ok');
    await createJob(client, quietJob('alpha-cron', url));
    await createJob(client, {
      name: 'alpha-every',
      target: { url },
      schedule: { type: 'interval', everySeconds: 3600 },
    });
    const beta = await createJob(client, {
      name: 'beta-every',
      target: { url },
      schedule: { type: 'interval', everySeconds: 3600 },
    });
    expect((await client.jobs.pause(beta.jobId)).error).toBeUndefined();

    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, token);
      await waitForRows(page, ['alpha-cron', 'alpha-every', 'beta-every']);

      await page.getByLabel('Schedule type').selectOption('interval');
      await waitForRows(page, ['alpha-every', 'beta-every']);
      expect(new URL(page.url()).searchParams.get('type')).toBe('interval');

      await page.getByLabel('Status').selectOption('PAUSED');
      await waitForRows(page, ['beta-every']);
      expect(new URL(page.url()).searchParams.get('status')).toBe('PAUSED');

      await page.reload();
      await waitForRows(page, ['beta-every']);
      expect(await page.getByLabel('Status').inputValue()).toBe('PAUSED');
      expect(await page.getByLabel('Schedule type').inputValue()).toBe('interval');

      await page.getByLabel('Status').selectOption('');
      await page.getByLabel('Name starts with').fill('alpha');
      await waitForRows(page, ['alpha-every']);
      expect(new URL(page.url()).searchParams.get('name')).toBe('alpha');

      await page.getByLabel('Schedule type').selectOption('');
      await waitForRows(page, ['alpha-cron', 'alpha-every']);
      await page.getByLabel('Name starts with').fill('gamma');
      await expect.poll(() => page.getByText('No jobs match these filters.').count(), { timeout: 15_000 }).toBe(1);
      await page.reload();
      await expect.poll(() => page.getByText('No jobs match these filters.').count(), { timeout: 15_000 }).toBe(1);
      expect(await page.getByLabel('Name starts with').inputValue()).toBe('gamma');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('pages through more jobs than one page holds with Next, Previous and the browser Back', async () => {
    const { token, client } = await newTenant(local, 'pages');
    const url = local.target.url('/ok');
    const names = Array.from({ length: 25 }, (_, i) => `job-${String(i + 1).padStart(2, '0')}`);
    // One after another: job ids are ULIDs, so the listing's order is the creation order.
    for (const name of names) await createJob(client, quietJob(name, url));

    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, token);
      await waitForRows(page, names.slice(0, 20));
      expect(await page.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);

      await page.getByRole('button', { name: 'Next' }).click();
      await waitForRows(page, names.slice(20));
      expect(new URL(page.url()).searchParams.get('cursor')).toBeTruthy();
      expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

      // A reload keeps the page (the cursor is in the URL).
      await page.reload();
      await waitForRows(page, names.slice(20));

      await page.getByRole('button', { name: 'Previous' }).click();
      await waitForRows(page, names.slice(0, 20));
      expect(new URL(page.url()).searchParams.get('cursor')).toBeNull();

      await page.goBack();
      await waitForRows(page, names.slice(20));
      await page.getByRole('button', { name: 'Previous' }).click();
      await waitForRows(page, names.slice(0, 20));
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('bulk-pauses, resumes and cancels the selected jobs after stating the count, reporting each refusal', async () => {
    const { token, client } = await newTenant(local, 'bulk');
    const url = local.target.url('/ok');
    const bulk: Job[] = [];
    for (const name of ['bulk-1', 'bulk-2', 'bulk-3']) bulk.push(await createJob(client, quietJob(name, url)));
    const untouched = await createJob(client, quietJob('untouched', url));
    const statuses = async () => Promise.all(bulk.map(async (job) => (await getJob(client, job.jobId)).status));

    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, token);
      await page.goto('/jobs?name=bulk-');
      await waitForRows(page, ['bulk-1', 'bulk-2', 'bulk-3']);

      // Pause: the dialog states the count, and nothing is sent before it is confirmed.
      await page.getByLabel('Select every job on this page').check();
      await page.getByRole('button', { name: 'Pause selected' }).click();
      const dialog = page.getByRole('dialog', { name: 'Pause 3 jobs?' });
      await dialog.waitFor();
      expect(await dialog.getByRole('listitem').allTextContents()).toEqual(['bulk-1', 'bulk-2', 'bulk-3']);
      expect(await statuses()).toEqual(['ACTIVE', 'ACTIVE', 'ACTIVE']);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'jobs-bulk-dialog');
      await dialog.getByRole('button', { name: 'Pause 3 jobs' }).click();
      await expect
        .poll(() => page.getByRole('status').first().textContent(), { timeout: 15_000 })
        .toContain('Paused 3 of 3 jobs.');
      // Focus is not lost with the dialog (the buttons that opened it are disabled now): a keyboard
      // user goes on from the report.
      await expect
        .poll(() => page.evaluate<string>('document.activeElement?.closest("[role=status]")?.textContent ?? ""'))
        .toContain('Paused 3 of 3 jobs.');
      expect(await statuses()).toEqual(['PAUSED', 'PAUSED', 'PAUSED']);
      await expect
        .poll(() => page.locator('tbody').getByText('PAUSED', { exact: true }).count(), { timeout: 15_000 })
        .toBe(3);

      // Resume with one already resumed elsewhere: two succeed, the third is reported with the API's reason.
      expect((await client.jobs.resume(bulk[0]?.jobId ?? '')).error).toBeUndefined();
      const refusal = await client.jobs.resume(untouched.jobId);
      expect(refusal.error?.status).toBe(409);
      await page.getByLabel('Select every job on this page').check();
      await page.getByRole('button', { name: 'Resume selected' }).click();
      await page.getByRole('dialog', { name: 'Resume 3 jobs?' }).getByRole('button', { name: 'Resume 3 jobs' }).click();
      await expect
        .poll(() => page.getByRole('status').first().textContent(), { timeout: 15_000 })
        .toContain('Resumed 2 of 3 jobs. 1 could not be resumed:');
      // The API's own reason, as it words it for bulk-1 (the refusal above was for another job).
      const reason = refusal.error?.message.replace(untouched.jobId, bulk[0]?.jobId ?? '');
      expect(await page.getByRole('status').first().textContent()).toContain(`bulk-1: ${reason}`);
      expect(await statuses()).toEqual(['ACTIVE', 'ACTIVE', 'ACTIVE']);

      // Cancel: every selected job ends, the one not selected stays.
      await page.getByLabel('Select bulk-2').check();
      await page.getByLabel('Select bulk-3').check();
      await page.getByLabel('Select bulk-1').check();
      await page.getByRole('button', { name: 'Cancel selected' }).click();
      await page.getByRole('dialog', { name: 'Cancel 3 jobs?' }).getByRole('button', { name: 'Cancel 3 jobs' }).click();
      await expect
        .poll(() => page.getByRole('status').first().textContent(), { timeout: 15_000 })
        .toContain('Cancelled 3 of 3 jobs.');
      expect(await statuses()).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED']);
      expect((await getJob(client, untouched.jobId)).status).toBe('ACTIVE');
      expect(await page.getByLabel('Select every job on this page').isChecked()).toBe(false);
      // The one refused resume is the only failed call the browser saw.
      expect(errors).toEqual(['Failed to load resource: the server responded with a status of 409 (Conflict)']);
    } finally {
      await context.close();
    }
  });
});
