/**
 * The console's workflow views against the real workflow routes (issue #21) of local Chronos and a
 * real HTTP target: a workflow created through the API is listed and drawn, a trigger from its page
 * leads to the run's page, which follows the run to its end without a reload; a failed run is
 * retried, a running one cancelled, and pause / resume / delete do what the API then reports.
 * Each test has a tenant of its own, so the list shows its workflows only.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, apiAs } from '../../test/e2e/support/tenant-api.ts';
import { type HttpTarget, startHttpTarget } from '../../test/support/http-target.ts';
import { newTenant } from './jobs-helpers.ts';
import { launchBrowser, openPage, screenshot, seriousViolations } from './support/browser.ts';
import { type ConsoleChronos, startConsoleChronos } from './support/console-chronos.ts';
import { eventually, signIn } from './support/runs-api.ts';

let local: ConsoleChronos;
let browser: Browser;
/** 200 at once; 500 under /fail; 200 after 20 s under /slow (a task that stays RUNNING). */
let target: HttpTarget;

beforeAll(async () => {
  [local, browser, target] = await Promise.all([
    startConsoleChronos(),
    launchBrowser(),
    startHttpTarget((path) =>
      path.startsWith('/fail')
        ? { status: 500, body: 'boom' }
        : path.startsWith('/slow')
          ? { status: 200, delayMs: 20_000 }
          : { status: 200 },
    ),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await local?.stop();
  await target?.close();
});

interface Task {
  key: string;
  dependsOn?: string[];
  when?: string;
  target: { url: string };
  retry?: { maxAttempts: number };
}

/** extract → (clean, enrich) → load, and page-oncall when clean or enrich failed; `enrich` at `enrichPath`. */
function diamond(enrichPath: string): Task[] {
  return [
    { key: 'extract', target: { url: target.url('/ok/extract') } },
    { key: 'clean', dependsOn: ['extract'], target: { url: target.url('/ok/clean') } },
    { key: 'enrich', dependsOn: ['extract'], target: { url: target.url(enrichPath) }, retry: { maxAttempts: 1 } },
    { key: 'load', dependsOn: ['clean', 'enrich'], target: { url: target.url('/ok/load') } },
    { key: 'page-oncall', dependsOn: ['clean', 'enrich'], when: 'any_failed', target: { url: target.url('/ok/page') } },
  ];
}
/** One edge per dependency: extract→clean, extract→enrich, clean→load, enrich→load, clean→page-oncall, enrich→page-oncall. */
const DEPENDENCIES = 6;

async function createWorkflow(api: Api, name: string, tasks: Task[]): Promise<string> {
  const created = await api('POST', '/v1/workflows', { name, tasks });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.workflowId as string;
}

async function trigger(api: Api, workflowId: string): Promise<string> {
  const answer = await api('POST', `/v1/workflows/${workflowId}/trigger`);
  if (answer.status !== 202) throw new Error(`trigger answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.workflowRunId as string;
}

const runOf = async (api: Api, workflowRunId: string) =>
  (await api('GET', `/v1/workflow-runs/${encodeURIComponent(workflowRunId)}`)).body;

const runStatus = (page: Page) => page.getByTestId('workflow-run-status').textContent();
const node = (page: Page, key: string) => page.locator(`.react-flow__node[data-id="${key}"]`);
const taskRow = (page: Page, key: string) => page.locator(`tbody tr[data-task-key="${key}"]`);

describe('workflow views (real API)', () => {
  it('lists and draws a workflow, triggers it from its page and follows the run to SUCCEEDED', async () => {
    const tenant = await newTenant(local, 'wf-views-ok');
    const api = apiAs(local.url, tenant.token);
    const workflowId = await createWorkflow(api, 'diamond ok', diamond('/ok/enrich'));
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, tenant.token, '/workflows');
      const rows = page.locator('tbody tr[data-workflow-id]');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1);
      expect(await rows.first().getAttribute('data-workflow-id')).toBe(workflowId);
      expect(await rows.first().textContent()).toContain('only when triggered');
      expect(await rows.first().locator('td').nth(4).textContent()).toBe('5');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'workflows-real-list');

      await rows.first().getByRole('link', { name: 'diamond ok' }).click();
      await expect.poll(() => page.locator('.react-flow__node').count(), { timeout: 15_000 }).toBe(5);
      // Edges are drawn once React Flow has measured the nodes, a frame after them.
      await expect.poll(() => page.locator('.react-flow__edge').count(), { timeout: 15_000 }).toBe(DEPENDENCIES);
      expect(await node(page, 'page-oncall').textContent()).toContain('when any failed');
      await expect.poll(() => page.getByText('No runs yet').count()).toBe(1);

      await page.getByRole('button', { name: 'Trigger now' }).click();
      const triggered = page.getByTestId('triggered-run').getByRole('link');
      await expect.poll(() => triggered.count(), { timeout: 15_000 }).toBe(1);
      const workflowRunId = (await triggered.textContent()) as string;
      expect((await runOf(api, workflowRunId)).workflowId).toBe(workflowId);
      // The runs list shows it too.
      await expect
        .poll(() => page.locator(`tbody tr[data-workflow-run-id="${workflowRunId}"]`).count(), { timeout: 15_000 })
        .toBe(1);

      await triggered.click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/workflow-runs/${workflowRunId}`);
      await page.evaluate('window.__sameDocument = true');
      await expect.poll(() => runStatus(page), { timeout: 45_000 }).toBe('SUCCEEDED');
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
      const run = await runOf(api, workflowRunId);
      expect(run.status).toBe('SUCCEEDED');
      for (const task of run.tasks as { key: string; status: string; runId: string | null }[]) {
        await expect.poll(() => taskRow(page, task.key).textContent()).toContain(task.status);
        expect(await node(page, task.key).textContent()).toContain(task.status);
        if (task.runId) expect(await taskRow(page, task.key).textContent()).toContain(task.runId);
      }
      expect(await taskRow(page, 'page-oncall').textContent()).toContain('SKIPPED');
      expect(await page.getByRole('button', { name: 'Retry…' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Cancel run…' }).isDisabled()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'workflows-real-run');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('retries a FAILED run after confirming: the failed task is called again, the succeeded ones are not', async () => {
    const tenant = await newTenant(local, 'wf-views-retry');
    const api = apiAs(local.url, tenant.token);
    const workflowId = await createWorkflow(api, 'diamond failing', diamond('/fail/enrich'));
    const workflowRunId = await trigger(api, workflowId);
    await eventually(
      () => runOf(api, workflowRunId),
      (run) => run.status === 'FAILED',
      45_000,
    );
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, tenant.token, `/workflow-runs/${encodeURIComponent(workflowRunId)}`);
      await expect.poll(() => runStatus(page), { timeout: 15_000 }).toBe('FAILED');
      const enrich = await taskRow(page, 'enrich').textContent();
      expect(enrich).toContain('FAILED');
      expect(enrich).toContain('500');
      const load = (await runOf(api, workflowRunId)).tasks.find((task: { key: string }) => task.key === 'load');
      expect(load.status).toBe('SKIPPED');
      expect(await taskRow(page, 'load').textContent()).toContain(load.skippedReason);
      expect(await node(page, 'enrich').textContent()).toContain('FAILED');
      expect(await page.getByRole('button', { name: 'Cancel run…' }).isDisabled()).toBe(true);

      const extractCalls = target.callsTo('/ok/extract').length;
      const enrichCalls = target.callsTo('/fail/enrich').length;
      await page.getByRole('button', { name: 'Retry…' }).click();
      await page
        .getByRole('dialog', { name: 'Retry this workflow run?' })
        .getByRole('button', { name: 'Retry run' })
        .click();
      await expect.poll(() => page.getByText('Retrying: round 1 started.').count(), { timeout: 15_000 }).toBe(1);
      await target.waitForCalls('/fail/enrich', enrichCalls + 1, 30_000);
      await expect.poll(() => runStatus(page), { timeout: 45_000 }).toBe('FAILED');
      const retried = await runOf(api, workflowRunId);
      expect(retried.round).toBe(1);
      expect(target.callsTo('/ok/extract').length).toBe(extractCalls);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('cancels a RUNNING run after confirming: the page follows it to CANCELLED and the task not started is never called', async () => {
    const tenant = await newTenant(local, 'wf-views-cancel');
    const api = apiAs(local.url, tenant.token);
    const workflowId = await createWorkflow(api, 'slow', [
      { key: 'slow', target: { url: target.url('/slow/one') } },
      { key: 'after', dependsOn: ['slow'], target: { url: target.url('/ok/after') } },
    ]);
    const workflowRunId = await trigger(api, workflowId);
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, tenant.token, `/workflow-runs/${encodeURIComponent(workflowRunId)}`);
      await expect.poll(() => runStatus(page), { timeout: 15_000 }).toBe('RUNNING');
      expect(await page.getByRole('button', { name: 'Retry…' }).isDisabled()).toBe(true);
      await screenshot(page, 'workflows-real-running');
      await page.getByRole('button', { name: 'Cancel run…' }).click();
      await page
        .getByRole('dialog', { name: 'Cancel this workflow run?' })
        .getByRole('button', { name: 'Cancel run' })
        .click();
      await expect.poll(() => runStatus(page), { timeout: 15_000 }).toBe('CANCELLED');
      expect((await runOf(api, workflowRunId)).status).toBe('CANCELLED');
      await expect.poll(() => taskRow(page, 'after').textContent()).toContain('CANCELLED');
      expect(target.callsTo('/ok/after')).toEqual([]);
      expect(await page.getByRole('button', { name: 'Cancel run…' }).isDisabled()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('pauses, resumes and deletes (after confirming) a workflow, as the API then reports', async () => {
    const tenant = await newTenant(local, 'wf-views-actions');
    const api = apiAs(local.url, tenant.token);
    const created = await api('POST', '/v1/workflows', {
      name: 'yearly',
      schedule: { type: 'cron', expression: '0 3 1 1 *', timezone: 'UTC' },
      tasks: [{ key: 'only', target: { url: target.url('/ok/only') } }],
    });
    expect(created.status).toBe(201);
    const workflowId = created.body.workflowId as string;
    const status = async () => (await api('GET', `/v1/workflows/${workflowId}`)).body.status;
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, tenant.token, `/workflows/${workflowId}`);
      const shown = () => page.getByTestId('workflow-status').textContent();
      await expect.poll(shown, { timeout: 15_000 }).toBe('ACTIVE');
      expect(await page.getByRole('region', { name: 'Definition' }).textContent()).toContain(
        'At 03:00, on day 1 of the month, only in January',
      );

      await page.getByRole('button', { name: 'Pause' }).click();
      await expect.poll(shown).toBe('PAUSED');
      expect(await status()).toBe('PAUSED');
      await page.getByRole('button', { name: 'Resume' }).click();
      await expect.poll(shown).toBe('ACTIVE');
      expect(await status()).toBe('ACTIVE');

      await page.getByRole('button', { name: 'Delete…' }).click();
      await page
        .getByRole('dialog', { name: 'Delete this workflow?' })
        .getByRole('button', { name: 'Delete workflow' })
        .click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/workflows');
      await expect.poll(() => page.getByText('Deleted yearly.').count()).toBe(1);
      const after = await api('GET', `/v1/workflows/${workflowId}`);
      // Deleted: gone (404), or kept as CANCELLED as a cancelled job is.
      expect(after.status === 404 || after.body.status === 'CANCELLED').toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
