/**
 * The job detail page in a real browser against local Chronos and a real target: the definition
 * (secret headers only as ***), the upcoming occurrences in the browser's zone and the schedule's,
 * a run appearing and reaching SUCCEEDED without a reload, pause / resume / trigger / cancel as
 * the API sees them, a refused action's message, the run history's filters in the URL, and the
 * timing chart with one point per run shown.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage, screenshot, seriousViolations } from './support/browser.ts';
import { type ConsoleChronos, startConsoleChronos } from './support/console-chronos.ts';
import { createJob, eventually, jobStatus, runsOf, signIn, tenantApi } from './support/runs-api.ts';

let local: ConsoleChronos;
let browser: Browser;

beforeAll(async () => {
  [local, browser] = await Promise.all([startConsoleChronos(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await local?.stop();
});

const rows = (page: Page) => page.locator('tbody tr[data-run-id]');
const headerStatus = (page: Page) => page.getByTestId('job-status').textContent();

describe('job detail', () => {
  it('shows the definition, secret headers as ***, upcoming times in both zones, and a run reaching SUCCEEDED', async () => {
    const secret = 'Bearer very-secret-value';
    const soon = await createJob(local, {
      name: 'nightly report',
      target: {
        url: local.target.url('/ok/report'),
        method: 'PUT',
        headers: { 'x-team': 'billing' },
        secretHeaders: { authorization: secret },
      },
      schedule: { type: 'once', at: new Date(Date.now() + 8_000).toISOString() },
    });
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, local.chronos.token, `/jobs/${soon.jobId}`);
      await expect.poll(() => page.getByRole('heading', { name: 'nightly report' }).count()).toBe(1);
      const definition = page.getByRole('region', { name: 'Definition' });
      await expect.poll(() => definition.textContent()).toContain(`PUT ${local.target.url('/ok/report')}`);
      expect(await definition.textContent()).toContain('authorization: ***');
      expect(await definition.textContent()).toContain('x-team: billing');
      expect(await page.content()).not.toContain('very-secret-value');

      // The run is not done yet when the page opens; it reaches SUCCEEDED on the page, without a reload.
      expect((await runsOf(local, soon.jobId)).map((run) => run.status)).not.toContain('SUCCEEDED');
      await page.evaluate('window.__sameDocument = true');
      await expect.poll(() => rows(page).first().textContent(), { timeout: 30_000 }).toContain('SUCCEEDED');
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
      const [run] = await runsOf(local, soon.jobId);
      expect(run?.status).toBe('SUCCEEDED');
      expect(await rows(page).first().getAttribute('data-run-id')).toBe(run?.runId);
      // Times in the browser's zone, UTC in the title.
      const scheduled = rows(page).first().locator('time').first();
      const iso = (await scheduled.getAttribute('datetime')) as string;
      expect(await scheduled.getAttribute('title')).toMatch(/ UTC$/);
      expect(await scheduled.textContent()).toBe(berlin(iso));
      await expect.poll(() => headerStatus(page), { timeout: 15_000 }).toBe('COMPLETED');

      // A cron job in New York: its next 09:00 shows as 15:00 here and 09:00 in the schedule's zone.
      const cron = await createJob(local, {
        name: 'new york morning',
        target: { url: local.target.url('/ok/ny') },
        schedule: { type: 'cron', expression: '0 9 * * *', timezone: 'America/New_York' },
      });
      await page.goto(`/jobs/${cron.jobId}`);
      const upcoming = page.getByRole('region', { name: 'Upcoming occurrences' });
      await expect.poll(() => upcoming.locator('tbody tr').count()).toBe(5);
      expect(await upcoming.textContent()).toContain('Your time (Europe/Berlin)');
      expect(await upcoming.textContent()).toContain("Schedule's zone (America/New_York)");
      const first = upcoming.locator('tbody tr').first();
      expect(await first.locator('td').nth(0).textContent()).toContain('15:00:00');
      expect(await first.locator('td').nth(1).textContent()).toContain('09:00:00');
      expect(await first.locator('time').getAttribute('title')).toContain('14:00:00 UTC');
      // The schedule in words, with its own zone and the expression.
      const cronDefinition = await page.getByRole('region', { name: 'Definition' }).textContent();
      expect(cronDefinition).toContain('At 09:00 (America/New_York)');
      expect(cronDefinition).toContain('0 9 * * *');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'job-detail-upcoming');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('pauses, resumes, triggers and cancels (after confirming), as the API then reports', async () => {
    const { jobId } = await createJob(local, {
      name: 'hourly sync',
      target: { url: local.target.url('/ok/sync') },
      schedule: { type: 'interval', everySeconds: 3_600 },
    });
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, local.chronos.token, `/jobs/${jobId}`);
      await expect.poll(() => headerStatus(page)).toBe('ACTIVE');

      await page.getByRole('button', { name: 'Pause' }).click();
      await expect.poll(() => headerStatus(page)).toBe('PAUSED');
      expect(await jobStatus(local, jobId)).toBe('PAUSED');
      expect(await page.getByRole('button', { name: 'Pause' }).isDisabled()).toBe(true);
      // The pressed button was disabled under the focus: focus goes to the outcome, not the page's top.
      const focused = () => page.evaluate<string>('document.activeElement?.textContent ?? ""');
      await expect.poll(focused).toMatch(/^Paused: no run starts until you resume\.$/);

      await page.getByRole('button', { name: 'Resume' }).click();
      await expect.poll(() => headerStatus(page)).toBe('ACTIVE');
      expect(await jobStatus(local, jobId)).toBe('ACTIVE');

      const before = (await runsOf(local, jobId)).length;
      await page.getByRole('button', { name: 'Trigger now' }).click();
      await expect.poll(() => page.getByText('Triggered').count()).toBe(1);
      await expect.poll(async () => (await runsOf(local, jobId)).length).toBe(before + 1);
      await expect.poll(() => rows(page).count(), { timeout: 15_000 }).toBe(before + 1);

      // Cancel asks first; "Keep as is" changes nothing.
      await page.getByRole('button', { name: 'Cancel job…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Cancel this job?' });
      await expect.poll(() => dialog.count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Keep as is' }).click();
      expect(await jobStatus(local, jobId)).toBe('ACTIVE');
      await page.getByRole('button', { name: 'Cancel job…' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel job', exact: true }).click();
      await expect.poll(() => headerStatus(page)).toBe('CANCELLED');
      await expect.poll(focused).toMatch(/^Cancelled: the job will not run again\.$/);
      expect(await jobStatus(local, jobId)).toBe('CANCELLED');
      expect(await page.getByRole('button', { name: 'Trigger now' }).isDisabled()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows the API's refusal of an action, a failed run query beside the rest, and an unknown job", async () => {
    // A one-time job that has not run yet cannot be triggered (its single run decides its status).
    const { jobId } = await createJob(local, {
      name: 'once tomorrow',
      target: { url: local.target.url('/ok/later') },
      schedule: { type: 'once', at: new Date(Date.now() + 86_400_000).toISOString() },
    });
    const { context, page } = await openPage(browser, local.url);
    try {
      await signIn(page, local.chronos.token, `/jobs/${jobId}`);
      await page.getByRole('button', { name: 'Trigger now' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'Could not trigger' });
      await expect.poll(() => refusal.count()).toBe(1);
      const api = await tenantApi(local)('POST', `/v1/jobs/${jobId}/trigger`);
      expect(api.status).toBe(409);
      expect(await refusal.textContent()).toContain(api.body.error.message);

      // A run query the API refuses (a `from` that is no instant, as a hand-edited link may carry):
      // the history says so, the definition and the actions stay.
      await page.goto(`/jobs/${jobId}?from=yesterday`);
      await expect
        .poll(() => page.getByRole('alert').filter({ hasText: 'Could not load the runs' }).count(), { timeout: 15_000 })
        .toBe(1);
      expect(await page.getByRole('region', { name: 'Definition' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Pause' }).isEnabled()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'job-detail-runs-failed');

      // A job that is not there (or another tenant's): said plainly.
      await page.goto('/jobs/01ARZ3NDEKTSV4RRFFQ69G5FAV');
      await expect.poll(() => page.getByText('No job 01ARZ3NDEKTSV4RRFFQ69G5FAV in this tenant.').count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('pages the run history by cursor, filters it by status and time in the URL, and charts one point per run shown', async () => {
    // Succeeds every second, then (target changed) fails: a history with both outcomes.
    const { jobId } = await createJob(local, {
      name: 'flaky',
      target: { url: local.target.url('/ok/flaky') },
      schedule: { type: 'interval', everySeconds: 1 },
      retry: { maxAttempts: 1 },
    });
    await eventually(
      () => runsOf(local, jobId, '&status=SUCCEEDED'),
      (runs) => runs.length >= 3,
      20_000,
    );
    await retarget(jobId, local.target.url('/fail/flaky'));
    await eventually(
      () => runsOf(local, jobId, '&status=FAILED'),
      (runs) => runs.length >= 2,
      20_000,
    );
    expect((await tenantApi(local)('POST', `/v1/jobs/${jobId}/pause`)).status).toBe(200);
    const ended = await eventually(
      () => runsOf(local, jobId),
      (runs) => runs.every((run) => run.status === 'SUCCEEDED' || run.status === 'FAILED'),
      15_000,
    );

    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, local.chronos.token, `/jobs/${jobId}`);
      await expect.poll(() => rows(page).count()).toBe(Math.min(ended.length, 20));
      const chart = page.getByTestId('run-timing-chart');
      // The chart is its own chunk (React.lazy), fetched and parsed after the rows: on a loaded
      // machine that takes longer than the poll's default second.
      await expect
        .poll(() => chart.locator('circle[data-series="duration"]').count(), { timeout: 15_000 })
        .toBe(Math.min(ended.length, 20));
      expect(await chart.getAttribute('data-points')).toBe(String(Math.min(ended.length, 20)));
      expect(await chart.locator('circle[data-series="start-lag"]').count()).toBe(Math.min(ended.length, 20));
      await screenshot(page, 'job-detail');

      // Pages by the API's cursor, kept in the URL: two runs a page.
      const ids = (await runsOf(local, jobId)).map((run) => run.runId);
      const shown = () => rows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run-id')));
      await page.goto(`/jobs/${jobId}?limit=2`);
      await expect.poll(shown).toEqual(ids.slice(0, 2));
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('cursor')).not.toBeNull();
      await expect.poll(shown).toEqual(ids.slice(2, 4));
      await page.getByRole('button', { name: 'First page' }).click();
      await expect.poll(shown).toEqual(ids.slice(0, 2));
      await page.goto(`/jobs/${jobId}`);
      await expect.poll(() => rows(page).count()).toBe(Math.min(ended.length, 20));

      await page.getByLabel('Status').selectOption('FAILED');
      await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('FAILED');
      const failed = await runsOf(local, jobId, '&status=FAILED');
      await expect.poll(() => rows(page).count()).toBe(Math.min(failed.length, 20));
      expect(await rows(page).allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('FAILED')]));
      for (const text of await rows(page).allTextContents()) expect(text).not.toContain('SUCCEEDED');
      expect(await chart.locator('circle[data-series="duration"]').count()).toBe(await rows(page).count());
      // A failed run's excerpt opens in place.
      const excerpt = rows(page).first().locator('details');
      if ((await excerpt.count()) > 0) await excerpt.locator('summary').click();
      expect(await rows(page).first().textContent()).toContain('http_5xx');

      // The URL alone shows the same view (a reload, a shared link).
      await page.reload();
      await expect.poll(() => rows(page).count()).toBe(Math.min(failed.length, 20));
      expect(await page.getByLabel('Status').inputValue()).toBe('FAILED');

      // A range after every run: none left, and the range is in the URL.
      await page.getByLabel('Status').selectOption('');
      await page.getByLabel('Scheduled from').fill(localInput(Date.now() + 3_600_000));
      await page.getByRole('button', { name: 'Apply range' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('from')).not.toBeNull();
      await expect.poll(() => page.getByText('No run matches these filters').count()).toBe(1);
      expect(await rows(page).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

/** PATCHes the job's target, again while the scanner's writes move its version (409). */
async function retarget(jobId: string, url: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const job = (await tenantApi(local)('GET', `/v1/jobs/${jobId}`)).body;
    const patched = await tenantApi(local)(
      'PATCH',
      `/v1/jobs/${jobId}`,
      { target: { url } },
      { 'if-match': `"${job.version}"` },
    );
    if (patched.status === 200) return;
    if (patched.status !== 409) throw new Error(`PATCH answered ${patched.status}: ${JSON.stringify(patched.body)}`);
  }
  throw new Error('the job kept changing under the PATCH');
}

/** How the console shows an instant in the test browser (en-GB, Europe/Berlin). */
function berlin(iso: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Berlin',
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(new Date(iso));
}

/** A datetime-local value in Berlin time for an instant. */
function localInput(ms: number): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Europe/Berlin',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(ms))
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}
