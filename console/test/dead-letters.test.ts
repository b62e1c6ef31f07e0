/**
 * The dead letters page in a real browser: the empty state, dead-lettered runs listed with their
 * job and reason (made as SQS makes them: the message handed to the dispatch DLQ), and re-driving
 * several at once after a confirmation with the count — one re-driven as a new attempt that calls
 * the target, one refused by the API (its job was cancelled), each reported on its own.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage, screenshot, seriousViolations } from './support/browser.ts';
import { type ConsoleChronos, startConsoleChronos } from './support/console-chronos.ts';
import { deadLetteredRun, runsOf, signIn, tenantApi } from './support/runs-api.ts';

let local: ConsoleChronos;
let browser: Browser;

beforeAll(async () => {
  [local, browser] = await Promise.all([startConsoleChronos(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await local?.stop();
});

const row = (page: Page, runId: string) => page.locator(`tbody tr[data-run-id="${runId}"]`);

describe('dead letters', () => {
  it('says there are none when no run was dead-lettered', async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, local.chronos.token, '/dead-letters');
      await expect.poll(() => page.getByText('No dead letters').count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Re-drive selected (0)' }).isDisabled()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'dead-letters-empty');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lists dead letters with their reason and re-drives several, reporting each outcome', async () => {
    const [good, refused] = await Promise.all([
      deadLetteredRun(local, '/ok/dead-good'),
      deadLetteredRun(local, '/ok/dead-cancelled', { interval: true }),
    ]);
    // A cancelled job's dead letter cannot be re-driven: the API answers 409.
    expect((await tenantApi(local)('DELETE', `/v1/jobs/${refused.jobId}`)).status).toBe(200);

    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, local.chronos.token, '/dead-letters');
      await expect.poll(() => page.locator('tbody tr[data-run-id]').count()).toBe(2);
      const goodRow = row(page, good.runId);
      await expect.poll(() => goodRow.textContent()).toContain('dead ');
      expect(await goodRow.textContent()).toContain('dead_letter');
      expect(await goodRow.getByRole('link').first().getAttribute('href')).toBe(`/jobs/${good.jobId}`);
      expect(await goodRow.locator('time').first().getAttribute('title')).toMatch(/ UTC$/);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'dead-letters');

      // One a page: the API's cursor in the URL takes the list on.
      const listed = (await tenantApi(local)('GET', '/v1/dead-letters')).body.items.map(
        (run: { runId: string }) => run.runId,
      );
      const shown = () =>
        page.locator('tbody tr[data-run-id]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run-id')));
      await page.goto('/dead-letters?limit=1');
      await expect.poll(shown).toEqual(listed.slice(0, 1));
      await page.getByRole('button', { name: 'Next page' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('cursor')).not.toBeNull();
      await expect.poll(shown).toEqual(listed.slice(1, 2));
      await page.goto('/dead-letters');
      await expect.poll(() => page.locator('tbody tr[data-run-id]').count()).toBe(2);

      await goodRow.getByRole('checkbox').check();
      await row(page, refused.runId).getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Re-drive selected (2)' }).click();
      const dialog = page.getByRole('dialog', { name: 'Re-drive 2 runs?' });
      await expect.poll(() => dialog.count()).toBe(1);
      await dialog.getByRole('button', { name: 'Re-drive 2 runs' }).click();

      const outcomes = page.getByRole('region', { name: /Re-drive: 1 of 2 re-driven/ });
      await expect.poll(() => outcomes.count(), { timeout: 15_000 }).toBe(1);
      const done = outcomes.locator('li[data-outcome="redriven"]');
      const no = outcomes.locator('li[data-outcome="refused"]');
      expect(await done.textContent()).toContain(good.runId);
      expect(await done.textContent()).toContain('attempt 2');
      expect(await done.getByRole('link', { name: "see its job's runs" }).getAttribute('href')).toBe(
        `/jobs/${good.jobId}`,
      );
      expect(await no.textContent()).toContain(refused.runId);
      expect(await no.textContent()).toContain('409');
      await screenshot(page, 'dead-letters-redriven');

      // The listing still shows the re-driven run (the API keeps the record), marked here; a second re-drive is refused.
      expect(await goodRow.textContent()).toContain('re-driven as attempt 2');
      expect(await row(page, refused.runId).textContent()).not.toContain('re-driven');
      await goodRow.getByRole('checkbox').check();
      await page.getByRole('button', { name: 'Re-drive selected (1)' }).click();
      await page
        .getByRole('dialog', { name: 'Re-drive 1 run?' })
        .getByRole('button', { name: 'Re-drive 1 run' })
        .click();
      const again = page.getByRole('region', { name: /Re-drive: 0 of 1 re-driven/ });
      await expect.poll(() => again.count(), { timeout: 15_000 }).toBe(1);
      expect(await again.locator('li[data-outcome="refused"]').textContent()).toContain('already re-driven');

      // The new attempt exists, runs, and calls the target; its job's page shows it.
      await expect
        .poll(async () => (await runsOf(local, good.jobId)).find((run) => run.attempt === 2)?.status, {
          timeout: 25_000,
        })
        .toBe('SUCCEEDED');
      expect(local.target.callsTo('/ok/dead-good')).toHaveLength(1);
      expect((await runsOf(local, refused.jobId)).map((run) => run.attempt)).toEqual([1]);
      await goodRow.getByRole('link').first().click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/jobs/${good.jobId}`);
      await expect
        .poll(() => page.locator('tbody tr[data-run-id]').first().textContent(), { timeout: 15_000 })
        // Status, then the Progress cell (— for a synchronous run), then the attempt.
        .toMatch(/^SUCCEEDED\s*—\s*2/);
      // The refused re-drives' 409s are the only errors the browser logged.
      expect(errors.filter((error) => !error.includes('status of 409'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
