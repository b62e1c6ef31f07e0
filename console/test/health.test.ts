/**
 * The health page in a real browser: a tenant's stats after runs succeeded and failed (as the API
 * counts them), the window in the URL, the charts over the window with those runs in them; the
 * operator's system view and every tenant's stats, one tenant's with the filter; and a failing
 * call (a refused tenant filter) leaving the rest of the page in place.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage, screenshot, seriousViolations } from './support/browser.ts';
import { type ConsoleChronos, startConsoleChronos } from './support/console-chronos.ts';
import { createJob, eventually, runsOf, signIn, tenantApi } from './support/runs-api.ts';

interface Timeseries {
  points: Array<{
    succeeded: number;
    failed: number;
    timedOut: number;
    deadLettered: number;
    durationMs: { p50: number | null };
    startLagMs: { p95: number | null };
  }>;
}

let local: ConsoleChronos;
let browser: Browser;

beforeAll(async () => {
  [local, browser] = await Promise.all([startConsoleChronos(), launchBrowser()]);
  // Three runs that succeed and two that fail, all ended before any test looks.
  const [ok, failing] = await Promise.all([
    createJob(local, {
      name: 'health ok',
      target: { url: local.target.url('/ok/health') },
      schedule: { type: 'interval', everySeconds: 1, maxRuns: 3 },
    }),
    createJob(local, {
      name: 'health failing',
      target: { url: local.target.url('/fail/health') },
      schedule: { type: 'interval', everySeconds: 1, maxRuns: 2 },
      retry: { maxAttempts: 1 },
    }),
  ]);
  await Promise.all([
    eventually(
      () => runsOf(local, ok.jobId, '&status=SUCCEEDED'),
      (runs) => runs.length === 3,
      30_000,
    ),
    eventually(
      () => runsOf(local, failing.jobId, '&status=FAILED'),
      (runs) => runs.length === 2,
      30_000,
    ),
  ]);
  // The stats are fed by the completion stream: wait until they count every run.
  await eventually(
    async () => (await tenantApi(local)('GET', '/v1/monitoring/stats?window=5m')).body.runs.total as number,
    (total) => total >= 5,
    30_000,
  );
});
afterAll(async () => {
  await browser?.close();
  await local?.stop();
});

/** The figure a stats card shows, by its label. */
async function figure(page: Page, label: string): Promise<string> {
  return (await page.locator('dt', { hasText: label }).locator('xpath=following-sibling::dd[1]').textContent()) ?? '';
}

describe('health', () => {
  it("shows a tenant's runs and jobs by status over the window chosen in the URL, and charts them", async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, local.chronos.token, '/health');
      const api = (await tenantApi(local)('GET', '/v1/monitoring/stats?window=1h')).body;
      const runsTable = page.getByRole('table', { name: 'Runs by status (window)' });
      await expect
        .poll(() => runsTable.getByRole('row', { name: /SUCCEEDED/ }).textContent())
        .toContain(String(api.runs.byStatus.SUCCEEDED));
      expect(api.runs.byStatus.SUCCEEDED).toBeGreaterThanOrEqual(3);
      expect(api.runs.byStatus.FAILED).toBeGreaterThanOrEqual(2);
      expect(await runsTable.getByRole('row', { name: /^FAILED/ }).textContent()).toContain(
        String(api.runs.byStatus.FAILED),
      );
      const jobsTable = page.getByRole('table', { name: 'Jobs by status (now)' });
      expect(await jobsTable.getByRole('row', { name: /COMPLETED/ }).textContent()).toContain(
        String(api.jobs.byStatus.COMPLETED ?? 0),
      );
      expect(await figure(page, 'Runs ended')).toBe(String(api.runs.total));
      expect(await figure(page, 'Due, not started')).toBe(String(api.runs.dueNotStarted));
      const percentiles = page.getByRole('table', { name: 'Percentiles over the window' });
      expect(await percentiles.getByRole('row', { name: /Duration/ }).textContent()).toContain(
        String(api.durationMs.count),
      );
      // Times in the browser's zone, UTC in the title.
      const from = page.getByTestId('stats').locator('time').first();
      expect(await from.getAttribute('title')).toMatch(/ UTC$/);

      // The charts hold the runs the time series counts: bars for successes and failures, a point
      // per minute that has a percentile.
      const series = (await tenantApi(local)('GET', '/v1/monitoring/timeseries?window=1h')).body as Timeseries;
      const sum = (pick: (point: Timeseries['points'][number]) => number) =>
        series.points.reduce((total, point) => total + pick(point), 0);
      expect(sum((point) => point.succeeded)).toBeGreaterThanOrEqual(3);
      expect(sum((point) => point.failed)).toBeGreaterThanOrEqual(2);
      const outcome = page.getByTestId('outcome-chart');
      await expect
        .poll(() => outcome.getAttribute('data-succeeded'), { timeout: 15_000 })
        .toBe(String(sum((point) => point.succeeded)));
      expect(await outcome.getAttribute('data-failed')).toBe(
        String(sum((point) => point.failed + point.timedOut + point.deadLettered)),
      );
      expect(await outcome.getAttribute('data-steps')).toBe(String(series.points.length));
      expect(await outcome.locator('rect[data-series="succeeded"]').count()).toBeGreaterThan(0);
      expect(await outcome.locator('rect[data-series="failed"]').count()).toBeGreaterThan(0);
      const latency = page.getByTestId('latency-chart');
      const withDuration = series.points.filter((point) => point.durationMs.p50 !== null).length;
      expect(withDuration).toBeGreaterThan(0);
      expect(await latency.locator('circle[data-series="duration-p50"]').count()).toBe(withDuration);
      expect(await latency.locator('circle[data-series="start-lag-p95"]').count()).toBe(
        series.points.filter((point) => point.startLagMs.p95 !== null).length,
      );

      await page.getByRole('group', { name: 'Window' }).getByRole('button', { name: '5 minutes' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('window')).toBe('5m');
      await expect.poll(() => page.getByRole('heading', { name: 'Last 5m' }).count()).toBe(1);
      expect(await page.getByRole('heading', { name: 'Over the last hour' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: '5 minutes' }).getAttribute('aria-pressed')).toBe('true');
      await page.reload();
      await expect.poll(() => page.getByRole('heading', { name: 'Last 5m' }).count()).toBe(1);
      // 24 hours: the series in quarter-hours.
      await page.getByRole('button', { name: '24 hours' }).click();
      await expect.poll(() => page.getByTestId('outcome-chart').getAttribute('data-steps')).toBe('96');
      expect(await page.getByTestId('outcome-chart').textContent()).toContain('per 15 minutes');
      expect(Number(await page.getByTestId('outcome-chart').getAttribute('data-succeeded'))).toBe(
        sum((point) => point.succeeded),
      );
      await page.getByRole('button', { name: '5 minutes' }).click();
      // A tenant has no system view.
      expect(await page.getByRole('heading', { name: 'System' }).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'health');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("gives the operator the system view and every tenant's stats, or one tenant's", async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, local.adminToken, '/health');
      const system = page.getByTestId('system');
      await expect.poll(() => system.count(), { timeout: 15_000 }).toBe(1);
      expect(await system.getByRole('heading', { name: 'Dispatch queue' }).count()).toBe(1);
      expect(await system.getByRole('heading', { name: 'Dead-letter queue' }).count()).toBe(1);
      const shards = system.getByRole('table', { name: 'Scanner shards, last pass' }).locator('tbody tr');
      await expect.poll(() => shards.count(), { timeout: 15_000 }).toBeGreaterThan(0);
      await expect.poll(() => page.getByTestId('stats').getAttribute('data-scope')).toBe('*');
      expect(await page.getByTestId('stats').textContent()).toContain('All tenants');
      await expect.poll(() => page.getByTestId('outcome-chart').count(), { timeout: 15_000 }).toBe(1);
      expect(Number(await page.getByTestId('outcome-chart').getAttribute('data-succeeded'))).toBeGreaterThanOrEqual(3);

      await page.getByLabel('Tenant id').fill(local.chronos.tenantId);
      await page.getByRole('button', { name: 'Show' }).click();
      await expect.poll(() => new URL(page.url()).searchParams.get('tenantId')).toBe(local.chronos.tenantId);
      await expect.poll(() => page.getByTestId('stats').getAttribute('data-scope')).toBe(local.chronos.tenantId);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'health-operator');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps the rest of the page when one call fails', async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      // A tenant id the API refuses (400: longer than 128 characters): the stats fail, the system view stays.
      await signIn(page, local.adminToken, '/health');
      errors.length = 0;
      await page.goto(`/health?tenantId=${'x'.repeat(200)}`);
      await expect
        .poll(() => page.getByRole('alert').filter({ hasText: 'Could not load the stats' }).count(), {
          timeout: 15_000,
        })
        .toBe(1);
      await expect
        .poll(() => page.getByRole('alert').filter({ hasText: 'Could not load the charts' }).count(), {
          timeout: 15_000,
        })
        .toBe(1);
      await expect.poll(() => page.getByTestId('system').count(), { timeout: 15_000 }).toBe(1);
      expect(await page.getByTestId('stats').count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'health-part-failed');
      expect(errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
