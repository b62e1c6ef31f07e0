/**
 * Creating and editing jobs in a real browser: a one-time job at a date-time in a chosen zone and
 * an interval job (once, however often submitted) appear in the list; the server's preview of a
 * cron schedule, and its reason for a bad one at the cron field; the API's validation errors next
 * to their fields; a body that is not JSON refused before any call; creation with the keyboard
 * alone; editing with If-Match, secret headers never shown nor sent back unless typed, and a 409
 * explained with a reload.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const JOB_PAGE = /^\/jobs\/([0-9A-Z]{26})$/;

/** The job id once the page has gone to the new or saved job's page. */
async function landedJobId(page: Page): Promise<string> {
  await expect.poll(() => new URL(page.url()).pathname, { timeout: 20_000 }).toMatch(JOB_PAGE);
  return JOB_PAGE.exec(new URL(page.url()).pathname)?.[1] ?? '';
}

/** The error text tied to an input by aria-describedby (what a screen reader reads with it). */
async function describedError(page: Page, inputLabel: string): Promise<string> {
  const ids = (await page.getByLabel(inputLabel, { exact: true }).getAttribute('aria-describedby')) ?? '';
  const errorId = ids.split(' ').find((id) => id.endsWith('-error'));
  return errorId ? ((await page.locator(`[id="${errorId}"]`).textContent()) ?? '') : '';
}

const isInvalid = (page: Page, label: string) => page.getByLabel(label, { exact: true }).getAttribute('aria-invalid');

/** The preview's occurrences, as the ISO instants of its <time> elements. */
const previewInstants = (page: Page) =>
  page
    .getByRole('region', { name: 'Next occurrences' })
    .locator('time')
    .evaluateAll((times) => times.map((time) => time.getAttribute('datetime')));

function recordCalls(page: Page, method: string, path: RegExp): Request[] {
  const calls: Request[] = [];
  page.on('request', (request) => {
    if (request.method() === method && path.test(new URL(request.url()).pathname)) calls.push(request);
  });
  return calls;
}

describe('create a job', () => {
  it('creates a one-time job at a date-time in the chosen zone and lists it', async () => {
    const { token, client } = await newTenant(local, 'once');
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, token);
      await page.getByRole('link', { name: 'New job' }).click();
      await page.getByLabel('Name', { exact: true }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'job-create');

      await page.getByLabel('Name', { exact: true }).fill('one-time-report');
      await page.getByLabel('URL', { exact: true }).fill(local.target.url('/ok'));
      await page.getByLabel('Date and time').fill('2031-03-05T14:30');
      await page.getByLabel('Time zone', { exact: true }).selectOption('America/New_York');
      // 14:30 in New York before its DST change (9 March 2031) is 19:30 UTC: the server agrees.
      await expect.poll(() => previewInstants(page), { timeout: 15_000 }).toEqual(['2031-03-05T19:30:00.000Z']);
      await page.getByRole('button', { name: 'Create job' }).click();
      const jobId = await landedJobId(page);
      const job = await getJob(client, jobId);
      expect(job.name).toBe('one-time-report');
      expect(job.schedule).toMatchObject({ type: 'once', at: '2031-03-05T19:30:00.000Z' });
      expect(job.target.url).toBe(local.target.url('/ok'));

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs', exact: true }).click();
      const row = page.getByRole('row', { name: /^Select one-time-report/ });
      await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('once at');
      expect(await row.locator('time').first().getAttribute('datetime')).toBe('2031-03-05T19:30:00.000Z');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('creates an interval job once however often it is submitted, and lists it in words', async () => {
    const { token, client } = await newTenant(local, 'interval');
    const { context, page, errors } = await openPage(browser, local.url);
    const creates = recordCalls(page, 'POST', /^\/v1\/jobs$/);
    try {
      await signIn(page, token);
      await page.goto('/jobs/new');
      await page.getByLabel('Name', { exact: true }).fill('every-five');
      await page.getByLabel('URL', { exact: true }).fill(local.target.url('/ok'));
      await page.getByLabel('Body (JSON)').fill('{"hello": "world"}');
      await page.getByLabel('Every interval').check();
      await page.getByLabel('Every', { exact: true }).fill('5');
      await page.getByLabel('Unit').selectOption('minutes');
      await page.getByRole('button', { name: 'Create job' }).dblclick();
      const jobId = await landedJobId(page);

      const listed = await client.jobs.listPage({ name: 'every-five' });
      expect(listed.data?.items.map((job) => job.jobId)).toEqual([jobId]);
      const job = await getJob(client, jobId);
      expect(job.schedule).toMatchObject({ type: 'interval', everySeconds: 300 });
      expect(job.target.body).toBe('{"hello":"world"}');
      // Every create the page sent carried the same Idempotency-Key.
      const keys = new Set(await Promise.all(creates.map((call) => call.headerValue('idempotency-key'))));
      expect(keys.size).toBe(1);
      expect([...keys][0]).toBeTruthy();

      await page.goto('/jobs');
      const row = page.getByRole('row', { name: /^Select every-five/ });
      await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('every 5 minutes');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("previews a cron schedule with the server's occurrences, and shows its reason for a bad one at the cron field", async () => {
    const { token, client } = await newTenant(local, 'cron');
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, token);
      await page.goto('/jobs/new');
      await page.getByLabel('Cron').check();
      await page.getByLabel('Cron expression').fill('0 9 * * 1-5');
      await page.getByLabel('Time zone', { exact: true }).selectOption('Europe/Berlin');
      const expected = await client.schedules.preview({
        schedule: { type: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' },
        count: 5,
      });
      await expect.poll(() => previewInstants(page), { timeout: 15_000 }).toEqual(expected.data?.occurrences);
      // Each is a weekday at 09:00 in Berlin, shown in the schedule's zone beside the browser's.
      const inZone = await page
        .getByRole('region', { name: 'Next occurrences' })
        .locator('tbody td:nth-child(2)')
        .allTextContents();
      expect(inZone).toHaveLength(5);
      for (const text of inZone) expect(text).toMatch(/^(Mon|Tue|Wed|Thu|Fri).*09:00:00$/);
      expect(await page.getByText('Reads: At 09:00, Monday through Friday').count()).toBe(1);

      await page.getByLabel('Cron expression').fill('0 9 * *');
      const refused = await client.schedules.preview({
        schedule: { type: 'cron', expression: '0 9 * *', timezone: 'Europe/Berlin' },
      });
      const reason = refused.error?.details.find((detail) => detail.field === 'schedule.expression')?.reason;
      expect(reason).toBeTruthy();
      await expect.poll(() => describedError(page, 'Cron expression'), { timeout: 15_000 }).toBe(reason);
      expect(await isInvalid(page, 'Cron expression')).toBe('true');
      // Submitted anyway: the API refuses it, and the reason stays at the same field.
      await page.getByLabel('URL', { exact: true }).fill(local.target.url('/ok'));
      await page.getByRole('button', { name: 'Create job' }).click();
      await expect
        .poll(() => page.getByRole('alert').first().textContent(), { timeout: 15_000 })
        .toContain('The API refused the job');
      expect(await describedError(page, 'Cron expression')).toBe(reason);
      expect((await client.jobs.listPage()).data?.items).toEqual([]);
      expect(errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("shows the API's validation errors next to their fields, and refuses a body that is not JSON before any call", async () => {
    const { token, client } = await newTenant(local, 'errors');
    const { context, page, errors } = await openPage(browser, local.url);
    const creates = recordCalls(page, 'POST', /^\/v1\/jobs$/);
    try {
      await signIn(page, token);
      await page.goto('/jobs/new');
      // The handler's rules: a URL it will not call, a header name HTTP does not allow.
      await page.getByLabel('URL', { exact: true }).fill('ftp://example.com/hook');
      await page.getByRole('button', { name: 'Add header' }).click();
      await page.getByLabel('Name of header 1').fill('bad header');
      await page.getByLabel('Value of header 1').fill('x');
      await page.getByRole('button', { name: 'Create job' }).click();
      await expect.poll(() => isInvalid(page, 'URL'), { timeout: 15_000 }).toBe('true');
      expect(creates).toHaveLength(1);
      const refusedTarget = await client.jobs.create({
        target: { url: 'ftp://example.com/hook', method: 'POST', headers: { 'bad header': 'x' } },
        schedule: { type: 'once' },
      });
      const reasonOf = (answer: typeof refusedTarget, field: string) =>
        answer.error?.details.find((detail) => detail.field === field)?.reason;
      expect(await describedError(page, 'URL')).toBe(reasonOf(refusedTarget, 'target.url'));
      expect(await describedError(page, 'Value of header 1')).toBe(
        reasonOf(refusedTarget, 'target.headers.bad header'),
      );
      expect(await isInvalid(page, 'Name of header 1')).toBe('true');
      // The keyboard lands on the first field in error.
      expect(await page.evaluate<string>('document.activeElement?.id')).toBe('jf-target-url');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'job-create-errors');

      // The schema's bounds (checked before the handler): each at its own field.
      await page.getByRole('button', { name: /^Remove/ }).click();
      await page.getByLabel('Timeout (seconds)').fill('0');
      await page.getByLabel('Attempts').fill('50');
      await page.getByRole('button', { name: 'Create job' }).click();
      await expect.poll(() => isInvalid(page, 'Timeout (seconds)'), { timeout: 15_000 }).toBe('true');
      expect(creates).toHaveLength(2);
      const refusedBounds = await client.jobs.create({
        target: { url: 'ftp://example.com/hook', method: 'POST' },
        schedule: { type: 'once' },
        timeoutSeconds: 0,
        retry: { maxAttempts: 50 },
      });
      expect(await describedError(page, 'Timeout (seconds)')).toBe(reasonOf(refusedBounds, 'timeoutSeconds'));
      expect(await describedError(page, 'Attempts')).toBe(reasonOf(refusedBounds, 'retry.maxAttempts'));

      await page.getByLabel('URL', { exact: true }).fill(local.target.url('/ok'));
      await page.getByLabel('Timeout (seconds)').fill('');
      await page.getByLabel('Attempts').fill('');
      await page.getByLabel('Body (JSON)').fill('{"report": "daily",}');
      await page.getByRole('button', { name: 'Create job' }).click();
      await expect.poll(() => describedError(page, 'Body (JSON)'), { timeout: 15_000 }).toContain('is not valid JSON');
      expect(await isInvalid(page, 'Body (JSON)')).toBe('true');
      expect(await page.getByRole('alert').first().textContent()).toContain('Nothing was sent');
      expect(creates).toHaveLength(2);
      expect((await client.jobs.listPage()).data?.items).toEqual([]);

      // Corrected, it goes through (with a new Idempotency-Key: the refused one is bound to its body).
      await page.getByLabel('Body (JSON)').fill('{"report": "daily"}');
      await page.getByRole('button', { name: 'Create job' }).click();
      const jobId = await landedJobId(page);
      expect((await getJob(client, jobId)).target.body).toBe('{"report":"daily"}');
      const keys = await Promise.all(creates.map((call) => call.headerValue('idempotency-key')));
      expect(new Set(keys).size).toBe(3);
      expect(errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('creates a job with the keyboard alone', async () => {
    const { token, client } = await newTenant(local, 'keyboard');
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, token);
      await page.goto('/jobs/new');
      await page.getByLabel('Name', { exact: true }).waitFor();
      const focused = () => page.evaluate<string>("document.activeElement?.id ?? ''");
      /** Tab until the element with this id (or this radio group) has the focus. */
      async function tabTo(id: string) {
        for (let i = 0; i < 40; i++) {
          await page.keyboard.press('Tab');
          if ((await focused()) === id) return;
        }
        throw new Error(`Tab never reached #${id}`);
      }
      await tabTo('jf-name');
      // The focus is visible: the outline the stylesheet gives :focus-visible.
      expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
      await page.keyboard.type('typed-by-keyboard');
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('jf-target-url');
      await page.keyboard.type(local.target.url('/ok'));
      // To the schedule type (the checked radio), then the arrow picks "Every interval".
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate<boolean>("document.activeElement?.name === 'schedule-type'")) break;
      }
      await page.keyboard.press('ArrowRight');
      await tabTo('jf-schedule-everySeconds');
      await page.keyboard.type('2');
      await page.keyboard.press('Enter');

      const jobId = await landedJobId(page);
      const job = await getJob(client, jobId);
      expect(job.name).toBe('typed-by-keyboard');
      expect(job.schedule).toMatchObject({ type: 'interval', everySeconds: 120 });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('edit a job', () => {
  it('saves only what changed with If-Match; secret header values are never shown, and sent only when typed', async () => {
    const { token, client } = await newTenant(local, 'edit');
    const created = await createJob(client, {
      ...quietJob('edit-me', local.target.url('/edit')),
      target: {
        url: local.target.url('/edit'),
        headers: { 'x-team': 'reports' },
        secretHeaders: { authorization: 'Bearer s3cret-value' },
      },
    });
    const { context, page, errors } = await openPage(browser, local.url);
    const patches = recordCalls(page, 'PATCH', /^\/v1\/jobs\//);
    try {
      await signIn(page, token);
      await page.goto(`/jobs/${created.jobId}/edit`);
      await expect
        .poll(() => page.getByLabel('Name', { exact: true }).inputValue(), { timeout: 15_000 })
        .toBe('edit-me');
      expect(await page.getByLabel('Value of secret header 1').inputValue()).toBe('');
      expect(await page.getByLabel('Value of secret header 1').getAttribute('placeholder')).toBe('***');
      expect(await page.getByLabel('Value of header 1').inputValue()).toBe('reports');
      expect(await page.content()).not.toContain('s3cret-value');
      expect(await page.getByLabel('Cron expression').inputValue()).toBe('0 3 1 1 *');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'job-edit');

      await page.getByLabel('Name', { exact: true }).fill('edited-name');
      await page.getByLabel('Timeout (seconds)').fill('45');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await landedJobId(page);
      expect(patches).toHaveLength(1);
      expect(await patches[0]?.headerValue('if-match')).toBe(`"${created.version}"`);
      const saved = await getJob(client, created.jobId);
      expect(saved).toMatchObject({ name: 'edited-name', timeoutSeconds: 45, version: created.version + 1 });
      // The target was not sent (it did not change): the stored secret still reaches the target.
      expect(saved.target).toEqual(created.target);
      expect((await client.jobs.trigger(created.jobId)).error).toBeUndefined();
      const [call] = await local.target.waitForCalls('/edit', 1, 20_000);
      expect(call?.headers.authorization).toBe('Bearer s3cret-value');

      // A new URL replaces the target whole: the stored secret must be typed again, or nothing is sent.
      await page.goto(`/jobs/${created.jobId}/edit`);
      await expect
        .poll(() => page.getByLabel('Name', { exact: true }).inputValue(), { timeout: 15_000 })
        .toBe('edited-name');
      await page.getByLabel('URL', { exact: true }).fill(local.target.url('/edit-v2'));
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect.poll(() => describedError(page, 'Value of secret header 1')).toContain('needs its value again');
      expect(patches).toHaveLength(1);
      await page.getByLabel('Value of secret header 1').fill('Bearer rotated');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await landedJobId(page);
      expect(patches).toHaveLength(2);
      const retargeted = await getJob(client, created.jobId);
      expect(retargeted.target).toMatchObject({
        url: local.target.url('/edit-v2'),
        headers: { 'x-team': 'reports' },
        secretHeaders: { authorization: '***' },
      });
      expect((await client.jobs.trigger(created.jobId)).error).toBeUndefined();
      const [retargetedCall] = await local.target.waitForCalls('/edit-v2', 1, 20_000);
      expect(retargetedCall?.headers.authorization).toBe('Bearer rotated');
      expect(retargetedCall?.headers['x-team']).toBe('reports');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('explains a 409 when the job changed after the form was opened, and reloads it', async () => {
    const { token, client } = await newTenant(local, 'conflict');
    const created = await createJob(client, quietJob('conflict-me', local.target.url('/ok')));
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await signIn(page, token);
      await page.goto(`/jobs/${created.jobId}/edit`);
      await expect
        .poll(() => page.getByLabel('Name', { exact: true }).inputValue(), { timeout: 15_000 })
        .toBe('conflict-me');
      // Someone else saves the job meanwhile.
      expect(
        (await client.jobs.update(created.jobId, { name: 'changed-elsewhere' }, created.version)).error,
      ).toBeUndefined();

      await page.getByLabel('Timeout (seconds)').fill('40');
      await page.getByRole('button', { name: 'Save changes' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'changed since you opened it' });
      await alert.waitFor({ timeout: 15_000 });
      expect(new URL(page.url()).pathname).toBe(`/jobs/${created.jobId}/edit`);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'job-edit-conflict');
      expect(await getJob(client, created.jobId)).toMatchObject({ name: 'changed-elsewhere', timeoutSeconds: 30 });

      await alert.getByRole('button', { name: 'Reload the job' }).click();
      await expect
        .poll(() => page.getByLabel('Name', { exact: true }).inputValue(), { timeout: 15_000 })
        .toBe('changed-elsewhere');
      expect(await page.getByRole('alert').filter({ hasText: 'changed since you opened it' }).count()).toBe(0);
      expect(await page.getByLabel('Timeout (seconds)').inputValue()).toBe('30');
      await page.getByLabel('Timeout (seconds)').fill('40');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await landedJobId(page);
      expect(await getJob(client, created.jobId)).toMatchObject({ name: 'changed-elsewhere', timeoutSeconds: 40 });
      expect(errors).toEqual(['Failed to load resource: the server responded with a status of 409 (Conflict)']);
    } finally {
      await context.close();
    }
  });
});
