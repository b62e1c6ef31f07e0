/**
 * The console's workflow views in a real browser, against the workflow answers of the contract
 * served by `page.route` (support/workflow-fixtures.ts; the rest is the real local API): the list
 * and its cursor pages, the detail page's graph (one node per task, one edge per dependency, each
 * task's rule and status in words), its actions reached by keyboard, and a workflow run's page
 * with retry, a refused cancel and its refresh while RUNNING. workflows.test.ts drives the same
 * pages against the real workflow routes.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage, screenshot, seriousViolations } from './support/browser.ts';
import { type ConsoleChronos, startConsoleChronos } from './support/console-chronos.ts';
import { signIn } from './support/runs-api.ts';
import {
  DEPENDENCY_COUNT,
  FAILED_RUN_ID,
  RUNNING_RUN_ID,
  serveWorkflowFixtures,
  TASK_COUNT,
  TRIGGERED_RUN_ID,
  WORKFLOW_ID,
} from './support/workflow-fixtures.ts';

let local: ConsoleChronos;
let browser: Browser;

beforeAll(async () => {
  [local, browser] = await Promise.all([startConsoleChronos(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await local?.stop();
});

const graph = (page: Page) => page.getByTestId('workflow-graph');
const node = (page: Page, key: string) => page.locator(`.react-flow__node[data-id="${key}"]`);

/** Presses Tab until the focused element is the button or link named `name` (throws if it never is). */
async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const text = await page.evaluate<string>('document.activeElement?.textContent?.trim() ?? ""');
    if (text === name) return;
  }
  throw new Error(`Tab never reached "${name}"`);
}

describe('workflow views (fixtures of the contract)', () => {
  it('lists workflows with their schedule in words, version, next fire and task count, paged by a cursor in the URL', async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      const fixture = await serveWorkflowFixtures(page);
      await signIn(page, local.chronos.token, '/jobs');
      // The navigation has the entry.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workflows' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/workflows');
      const rows = page.locator('tbody tr[data-workflow-id]');
      await expect.poll(() => rows.count()).toBe(2);
      const etl = await rows.nth(0).textContent();
      expect(etl).toContain('nightly-etl');
      expect(etl).toContain('At 02:00 (Europe/Berlin)');
      expect(etl).toContain('ACTIVE');
      expect(await rows.nth(0).locator('td').nth(2).textContent()).toBe('2');
      expect(await rows.nth(0).locator('td').nth(4).textContent()).toBe(String(TASK_COUNT));
      // Next fire in the browser's zone (01:00 UTC is 02:00 in Berlin), UTC on hover.
      const next = rows.nth(0).locator('time');
      expect(await next.textContent()).toContain('02:00:00');
      expect(await next.getAttribute('title')).toBe('2026-11-26 01:00:00 UTC');
      expect(await rows.nth(1).textContent()).toContain('only when triggered');
      expect(fixture.calls).toContain('GET /v1/workflows?limit=20');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'workflows-list');

      // The next page's cursor goes to the URL; Back walks back.
      await page.getByRole('button', { name: 'Next' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('cursor')).toBe('page-2');
      await expect.poll(() => rows.count()).toBe(1);
      expect(await rows.nth(0).textContent()).toContain('every hour');
      expect(fixture.calls).toContain('GET /v1/workflows?limit=20&cursor=page-2');
      await page.goBack();
      await expect.poll(() => rows.count()).toBe(2);

      // Empty and error states.
      fixture.listMode = 'empty';
      await page.goto('/workflows');
      await expect.poll(() => page.getByText('No workflows yet').count()).toBe(1);
      fixture.listMode = 'error';
      await page.goto('/workflows');
      await expect
        .poll(() => page.getByRole('alert').textContent(), { timeout: 15_000 })
        .toContain('Could not load the workflows: Something broke on our side');
      expect(errors.filter((error) => !error.includes('status of 500'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("draws the graph with one node per task and one edge per dependency, and a picked run's statuses in words", async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await serveWorkflowFixtures(page);
      await signIn(page, local.chronos.token, `/workflows/${WORKFLOW_ID}`);
      await expect.poll(() => page.getByRole('heading', { name: 'nightly-etl' }).count()).toBe(1);
      const definition = page.getByRole('region', { name: 'Definition' });
      expect(await definition.textContent()).toContain('At 02:00 (Europe/Berlin)');
      expect(await definition.textContent()).toContain('Version2');
      expect(await definition.textContent()).toContain('Misfirefire_once');
      // Each task's lane and flow control (issue #22), the default lane too.
      const lanes = (key: string) => page.locator(`tr[data-task-definition="${key}"]`).getByTestId('task-lanes');
      expect(await lanes('enrich').textContent()).toBe('high prioritykey enrichment-api: 3 in flight at most');
      expect(await lanes('extract').textContent()).toBe('normal priority');

      await expect.poll(() => page.locator('.react-flow__node').count(), { timeout: 15_000 }).toBe(TASK_COUNT);
      await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(DEPENDENCY_COUNT);
      expect(await graph(page).getAttribute('data-edges')).toBe(String(DEPENDENCY_COUNT));
      expect(await page.locator('.react-flow__edge').first().getAttribute('aria-label')).toMatch(/ depends on /);
      // The rule shows where it is not the default; no status before a run is picked.
      expect(await node(page, 'page-oncall').textContent()).toContain('when any failed');
      expect(await node(page, 'extract').getByTestId('task-rule').count()).toBe(0);
      expect(await node(page, 'extract').getAttribute('aria-label')).toBe('Task extract');
      // Top to bottom: a task sits below every task it depends on.
      const top = async (key: string) => (await node(page, key).boundingBox())?.y ?? Number.NaN;
      expect(await top('clean')).toBeGreaterThan(await top('extract'));
      expect(await top('load')).toBeGreaterThan(await top('enrich'));
      expect(await top('page-oncall')).toBeGreaterThan(await top('load'));

      // The runs, newest first; picking one colours the graph, with each status also in words.
      const runRows = page.locator('tbody tr[data-workflow-run-id]');
      await expect.poll(() => runRows.count()).toBe(2);
      expect(await runRows.nth(0).getAttribute('data-workflow-run-id')).toBe(RUNNING_RUN_ID);
      expect(await runRows.nth(1).textContent()).toContain('3 SUCCEEDED, 1 FAILED, 1 SKIPPED');
      await page.getByRole('button', { name: `Show on graph: ${FAILED_RUN_ID}` }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('run')).toBe(FAILED_RUN_ID);
      await expect.poll(() => node(page, 'enrich').textContent()).toContain('FAILED');
      expect(await node(page, 'load').textContent()).toContain('SKIPPED');
      expect(await node(page, 'extract').textContent()).toContain('SUCCEEDED');
      expect(await node(page, 'enrich').getAttribute('aria-label')).toBe('Task enrich, FAILED');
      const colour = (key: string) =>
        node(page, key)
          .locator('span.rounded')
          .evaluate((badge) => badge.ownerDocument.defaultView?.getComputedStyle(badge).backgroundColor);
      expect(await colour('enrich')).not.toBe(await colour('extract'));
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'workflow-detail');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('reaches trigger, pause, resume and delete by keyboard; a trigger links its run, delete asks first', async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      const fixture = await serveWorkflowFixtures(page);
      await signIn(page, local.chronos.token, `/workflows/${WORKFLOW_ID}`);
      await expect.poll(() => page.getByTestId('workflow-status').textContent()).toBe('ACTIVE');

      await page.locator('body').focus();
      await tabTo(page, 'Trigger now');
      await page.keyboard.press('Enter');
      const triggered = page.getByTestId('triggered-run');
      await expect.poll(() => triggered.textContent()).toContain(TRIGGERED_RUN_ID);
      expect(await triggered.getByRole('link').getAttribute('href')).toBe(`/workflow-runs/${TRIGGERED_RUN_ID}`);
      expect(fixture.calls).toContain(`POST /v1/workflows/${WORKFLOW_ID}/trigger`);

      await page.getByRole('button', { name: 'Trigger now' }).focus();
      await tabTo(page, 'Pause');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('workflow-status').textContent()).toBe('PAUSED');
      expect(await page.getByRole('button', { name: 'Pause' }).isDisabled()).toBe(true);
      // The pressed button was disabled under the focus: focus goes to the outcome.
      await expect
        .poll(() => page.evaluate<string>('document.activeElement?.textContent ?? ""'))
        .toContain('Paused: no scheduled run starts until you resume.');
      await page.getByRole('button', { name: 'Trigger now' }).focus();
      await tabTo(page, 'Resume');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('workflow-status').textContent()).toBe('ACTIVE');

      await page.getByRole('button', { name: 'Trigger now' }).focus();
      await tabTo(page, 'Delete…');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Delete this workflow?' });
      await expect.poll(() => dialog.count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'workflow-delete-dialog');
      // Going back deletes nothing.
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog.count()).toBe(0);
      expect(fixture.calls.some((call) => call.startsWith('DELETE'))).toBe(false);
      await page.getByRole('button', { name: 'Delete…' }).click();
      await dialog.getByRole('button', { name: 'Delete workflow' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/workflows');
      await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Deleted nightly-etl.');
      expect(fixture.calls).toContain(`DELETE /v1/workflows/${WORKFLOW_ID}`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a failed run by task (status, attempt, HTTP status, error type, skipped reason, run id) and retries it after confirming', async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      const fixture = await serveWorkflowFixtures(page);
      await signIn(page, local.chronos.token, `/workflow-runs/${FAILED_RUN_ID}`);
      await expect.poll(() => page.getByTestId('workflow-run-status').textContent()).toBe('FAILED');
      // A run's page stands under Workflows in the navigation.
      const entry = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workflows' });
      expect(await entry.getAttribute('class')).toContain('font-semibold');
      const task = (key: string) => page.locator(`tbody tr[data-task-key="${key}"]`);
      await expect.poll(() => page.locator('tbody tr[data-task-key]').count()).toBe(TASK_COUNT);
      const enrich = await task('enrich').textContent();
      expect(enrich).toContain('FAILED');
      expect(enrich).toContain('500');
      expect(enrich).toContain('HTTP_5XX');
      expect(enrich).toContain(`${WORKFLOW_ID}v2tenrich_`);
      expect(await task('enrich').locator('td').nth(1).textContent()).toBe('3');
      expect(await task('load').textContent()).toContain('enrich ended FAILED (load needs all_succeeded)');
      // The graph is coloured by status, and says each status in words.
      await expect.poll(() => page.locator('.react-flow__node').count(), { timeout: 15_000 }).toBe(TASK_COUNT);
      expect(await node(page, 'enrich').textContent()).toContain('FAILED');
      expect(await node(page, 'load').textContent()).toContain('SKIPPED');
      expect(await node(page, 'page-oncall').textContent()).toContain('SUCCEEDED');
      expect(await page.locator('.react-flow__edge').count()).toBe(DEPENDENCY_COUNT);

      // Retry is offered (the run FAILED), cancel is not (it ended); both reachable by keyboard.
      expect(await page.getByRole('button', { name: 'Cancel run…' }).isDisabled()).toBe(true);
      await page.locator('body').focus();
      await tabTo(page, 'Retry…');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'workflow-run');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Retry this workflow run?' });
      await dialog.getByRole('button', { name: 'Retry run' }).click();
      await expect.poll(() => page.getByText('Retrying: round 1 started.').count()).toBe(1);
      expect(fixture.calls).toContain(`POST /v1/workflow-runs/${FAILED_RUN_ID}/retry`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("refreshes a RUNNING run without a reload, and shows the API's reason when a cancel is refused", async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      const fixture = await serveWorkflowFixtures(page);
      await signIn(page, local.chronos.token, `/workflow-runs/${RUNNING_RUN_ID}`);
      await expect.poll(() => page.getByTestId('workflow-run-status').textContent()).toBe('RUNNING');
      await expect.poll(() => node(page, 'load').textContent(), { timeout: 15_000 }).toContain('PENDING');
      // The fixture's second read has clean SUCCEEDED: the page reads again by itself.
      await page.evaluate('window.__sameDocument = true');
      await expect
        .poll(() => page.locator('tbody tr[data-task-key="clean"]').textContent(), { timeout: 10_000 })
        .toContain('SUCCEEDED');
      expect(await node(page, 'clean').textContent()).toContain('SUCCEEDED');
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
      await screenshot(page, 'workflow-run-running');

      expect(await page.getByRole('button', { name: 'Retry…' }).isDisabled()).toBe(true);
      await page.locator('body').focus();
      await tabTo(page, 'Cancel run…');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Cancel this workflow run?' });
      await dialog.getByRole('button', { name: 'Cancel run' }).click();
      await expect
        .poll(() => page.getByRole('alert').textContent())
        .toBe('Could not cancel: The workflow run has already ended');
      expect(fixture.calls).toContain(`POST /v1/workflow-runs/${RUNNING_RUN_ID}/cancel`);
      expect(await seriousViolations(page)).toEqual([]);
      // The refused cancel's 409 is the only error the browser logged.
      expect(errors.filter((error) => !error.includes('status of 409'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
