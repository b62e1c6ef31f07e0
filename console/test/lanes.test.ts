/**
 * Priority lanes and flow control (issue #22) in a real browser, against the contract's answers
 * served by `page.route` over the real local API (support/lane-fixtures.ts): the job form sends
 * `priority` and `flowControl`, refuses a rate out of bounds before any call and shows the API's
 * 400 on `flowControl.ratePerSecond` at that field; the job page shows the lane, the limits and the
 * key's live state; a run shows how long it waited for its key; an edit sends the changed lane and
 * `flowControl: null` when emptied; a dead letter shows its lane; the operator's system view shows
 * each lane's queues.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTenant, quietJob, signIn } from './jobs-helpers.ts';
import { launchBrowser, openPage, screenshot, seriousViolations } from './support/browser.ts';
import { type ConsoleChronos, startConsoleChronos } from './support/console-chronos.ts';
import { serveLaneFixtures } from './support/lane-fixtures.ts';
import { signIn as signInAt } from './support/runs-api.ts';

let local: ConsoleChronos;
let browser: Browser;

beforeAll(async () => {
  [local, browser] = await Promise.all([startConsoleChronos(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await local?.stop();
});

const JOB_PAGE = /^\/jobs\/([0-9A-Z]{26})$/;
const RATE = 'Rate (calls started per second)';
const PARALLELISM = 'Parallelism (calls in flight at most)';
const KEY = 'Flow-control key';

/** The error text tied to an input by aria-describedby (what a screen reader reads with it). */
async function describedError(page: Page, label: string): Promise<string> {
  const ids = (await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? '';
  const errorId = ids.split(' ').find((id) => id.endsWith('-error'));
  return errorId ? ((await page.locator(`[id="${errorId}"]`).textContent()) ?? '') : '';
}
const isInvalid = (page: Page, label: string) => page.getByLabel(label, { exact: true }).getAttribute('aria-invalid');

describe('the job form', () => {
  it('sends priority and flow control, refuses a rate out of bounds, and shows the API’s 400 at the rate field', async () => {
    const { token, client } = await newTenant(local, 'lanes-form');
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      const fixture = await serveLaneFixtures(page);
      fixture.keys.set('stripe/eu', {
        key: 'stripe/eu',
        ratePerSecond: 10,
        parallelism: 2,
        inFlight: 2,
        waiting: 37,
        updatedAt: new Date().toISOString(),
      });
      await signIn(page, token);
      await page.goto('/jobs/new');
      await page.getByLabel('Name', { exact: true }).fill('invoice-sync');
      await page.getByLabel('URL', { exact: true }).fill(local.target.url('/ok'));
      await page.getByLabel('Every interval').check();
      await page.getByLabel('Every', { exact: true }).fill('1');
      await page.getByLabel('Unit').selectOption('hours');
      // Normal by default.
      expect(await page.getByLabel('Priority', { exact: true }).inputValue()).toBe('normal');
      await page.getByLabel('Priority', { exact: true }).selectOption('high');
      await page.getByLabel(KEY, { exact: true }).fill('stripe/eu');

      // Below the contract's 0.01: refused in the browser, nothing sent.
      await page.getByLabel(RATE, { exact: true }).fill('0.001');
      await page.getByRole('button', { name: 'Create job' }).click();
      await expect.poll(() => isInvalid(page, RATE), { timeout: 10_000 }).toBe('true');
      expect(await describedError(page, RATE)).toContain('0.01 to 10000');
      expect(fixture.sent).toEqual([]);

      // In bounds for the browser, refused by the API: its reason shows at the rate field.
      await page.getByLabel(RATE, { exact: true }).fill('10');
      await page.getByLabel(PARALLELISM, { exact: true }).fill('2');
      fixture.refuseNext = { field: 'flowControl.ratePerSecond', reason: 'is above the 5 per second this key allows' };
      await page.getByRole('button', { name: 'Create job' }).click();
      await expect.poll(() => isInvalid(page, RATE), { timeout: 10_000 }).toBe('true');
      expect(await describedError(page, RATE)).toBe('is above the 5 per second this key allows');
      expect(await isInvalid(page, PARALLELISM)).toBeNull();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel(RATE, { exact: true }).scrollIntoViewIfNeeded();
      await screenshot(page, 'lanes-form-refused-rate');

      await page.getByRole('button', { name: 'Create job' }).click();
      await expect.poll(() => new URL(page.url()).pathname, { timeout: 20_000 }).toMatch(JOB_PAGE);
      const jobId = JOB_PAGE.exec(new URL(page.url()).pathname)?.[1] ?? '';
      expect(fixture.sent.map((s) => s.body)).toHaveLength(2);
      expect(fixture.sent[1]?.body).toMatchObject({
        name: 'invoice-sync',
        priority: 'high',
        flowControl: { key: 'stripe/eu', ratePerSecond: 10, parallelism: 2 },
      });

      // The job page: its lane, its limits, and the key's live state (the key URL-encoded).
      const definition = page.getByRole('region', { name: 'Definition' });
      await expect
        .poll(() => definition.getByTestId('priority').textContent(), { timeout: 15_000 })
        .toBe('high priority');
      expect(await page.getByTestId('job-flow-control').textContent()).toBe('key stripe/eu: 10/s, 2 in flight at most');
      await expect.poll(() => page.getByTestId('flow-waiting').textContent(), { timeout: 15_000 }).toBe('37');
      expect(await page.getByTestId('flow-in-flight').textContent()).toBe('2');
      expect(fixture.calls).toContain('GET /v1/flow-control/stripe%2Feu');

      // A run that waited for the key, in a lane the job no longer has (PATCHed since).
      const run = await client.jobs.trigger(jobId);
      const runId = run.data?.runId ?? '';
      fixture.runs.set(runId, {
        priority: 'low',
        flowControl: { key: 'stripe/eu', ratePerSecond: 10 },
        waitedMs: 3_200,
      });
      await page.reload();
      const row = page.locator(`tr[data-run-id="${runId}"]`);
      await expect
        .poll(() => row.getByTestId('run-waited').textContent(), { timeout: 15_000 })
        .toBe('waited 3.2 s for key stripe/eu');
      expect(await row.getByTestId('priority').textContent()).toBe('low priority');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'lanes-job-detail');
      expect(errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fills the edit form from the job, sends the changed lane, and takes flow control away when emptied', async () => {
    const { token, client } = await newTenant(local, 'lanes-edit');
    const created = await client.jobs.create(quietJob('lanes-edit', local.target.url('/edit')));
    const jobId = created.data?.jobId ?? '';
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      const fixture = await serveLaneFixtures(page);
      fixture.jobs.set(jobId, { priority: 'high', flowControl: { key: 'adyen', parallelism: 4 } });
      await signIn(page, token);
      await page.goto(`/jobs/${jobId}/edit`);
      await expect.poll(() => page.getByLabel(KEY, { exact: true }).inputValue(), { timeout: 15_000 }).toBe('adyen');
      expect(await page.getByLabel('Priority', { exact: true }).inputValue()).toBe('high');
      expect(await page.getByLabel(PARALLELISM, { exact: true }).inputValue()).toBe('4');
      expect(await page.getByLabel(RATE, { exact: true }).inputValue()).toBe('');

      await page.getByLabel('Priority', { exact: true }).selectOption('low');
      await page.getByLabel(KEY, { exact: true }).fill('');
      await page.getByLabel(PARALLELISM, { exact: true }).fill('');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe(`/jobs/${jobId}`);

      expect(fixture.sent).toEqual([{ method: 'PATCH', body: { priority: 'low', flowControl: null } }]);
      const definition = page.getByRole('region', { name: 'Definition' });
      await expect
        .poll(() => definition.getByTestId('priority').textContent(), { timeout: 15_000 })
        .toBe('low priority');
      expect(await definition.textContent()).toContain('none: runs start as soon as they are due');
      expect(await page.getByRole('heading', { name: /Flow-control key/ }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the dead letters', () => {
  it('marks a dead letter of the high or low lane, and not one of the normal lane', async () => {
    const { token } = await newTenant(local, 'lanes-dead');
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      const fixture = await serveLaneFixtures(page);
      const dead = (runId: string, priority: string) => ({
        runId,
        jobId: runId.slice(0, 26),
        attempt: 3,
        status: 'DEAD_LETTERED',
        scheduledFor: '2026-11-25T06:00:00.000Z',
        completedAt: '2026-11-25T06:01:00.000Z',
        errorType: 'dead_letter',
        error: 'received too often',
        httpStatus: null,
        responseExcerpt: null,
        priority,
      });
      fixture.deadLetters = [
        dead('01JD2Q8Z4W6X7Y8Z9A0B1C2D3E_1795507200000_3', 'high'),
        dead('01JD2Q8Z4W6X7Y8Z9A0B1C2D3F_1795507200000_3', 'normal'),
      ];
      await signIn(page, token);
      await page.goto('/dead-letters');
      const rows = page.locator('tbody tr[data-run-id]');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
      expect(await rows.nth(0).getByTestId('priority').textContent()).toBe('high priority');
      expect(await rows.nth(1).getByTestId('priority').count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      // The jobs of these runs do not exist here: their names are looked up and not found.
      expect(errors.filter((error) => !error.includes('status of 404'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the system view', () => {
  it("shows each priority lane's queue depth and oldest message when the API reports lanes", async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      const fixture = await serveLaneFixtures(page);
      const queue = (depth: number, age: number | null) => ({
        visible: depth,
        inFlight: 0,
        delayed: 0,
        depth,
        oldestMessageAgeSeconds: age,
        oldestMessageAge:
          age === null
            ? { source: 'cloudwatch', reason: 'noData' }
            : { source: 'cloudwatch', at: new Date().toISOString() },
      });
      const dlq = (depth: number) => ({
        depth,
        oldestMessageAgeSeconds: null,
        oldestMessageAge: { source: 'cloudwatch', reason: 'noData' },
      });
      fixture.lanes = {
        high: { dispatchQueue: queue(3, 1), deadLetterQueue: dlq(0) },
        normal: { dispatchQueue: queue(40, 6), deadLetterQueue: dlq(1) },
        low: { dispatchQueue: queue(2000, 412), deadLetterQueue: dlq(0) },
      } as never;
      await signInAt(page, local.adminToken, '/health');
      const lanes = page.getByRole('table', { name: 'Queues per priority lane' });
      await expect.poll(() => lanes.locator('tbody tr').count(), { timeout: 15_000 }).toBe(3);
      const cells = (lane: string) =>
        lanes.locator(`tr[data-lane="${lane}"] td`).evaluateAll((tds) => tds.map((td) => td.textContent));
      expect(await cells('high')).toEqual(['3', '3', '0', '0', '1 s', '0', 'no data from CloudWatch']);
      expect(await cells('low')).toEqual(['2000', '2000', '0', '0', '412 s', '0', 'no data from CloudWatch']);
      expect((await cells('normal'))[5]).toBe('1');
      const system = page.getByTestId('system');
      expect(await system.getByRole('heading', { name: 'Dispatch queue (normal lane)' }).count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'lanes-system');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
