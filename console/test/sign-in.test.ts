/**
 * Signing in and out in a real browser: a wrong token is refused at the field, a tenant token
 * opens the jobs, the operator token opens monitoring only, the token lives in sessionStorage
 * only (never a URL, never localStorage), and signing out forgets it. The console is served at the
 * API's origin with the security headers CloudFront sets on AWS.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '../../lib/console/security-headers.ts';
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

describe('console sign-in', () => {
  it('serves the app at the API origin with its security headers, and leaves /v1 to the API', async () => {
    const page = await fetch(`${local.url}/jobs/some-job`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CONTENT_SECURITY_POLICY);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('<div id="root">');
    // A missing asset is a 404, not the app; /v1 stays the API's (JSON errors, not HTML).
    expect((await fetch(`${local.url}/assets/missing.js`)).status).toBe(404);
    // The build's own files (its .source-hash) are not served: the path gets the app, not the hash.
    expect(await (await fetch(`${local.url}/.source-hash`)).text()).toContain('<div id="root">');
    expect((await fetch(`${local.url}/..%2f..%2fpackage.json`)).status).not.toBe(200);
    const api = await fetch(`${local.url}/v1/nothing-here`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toContain('application/json');
  });

  it('refuses a wrong token at the field and keeps the user on the sign-in page', async () => {
    const { context, page } = await openPage(browser, local.url);
    try {
      await page.goto('/jobs');
      await expect.poll(() => page.url()).toContain('/sign-in?next=%2Fjobs');
      await page.getByLabel('API token').fill('not-a-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('not accepted');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'sign-in-refused');
    } finally {
      await context.close();
    }
  });

  it('signs a tenant in to the page asked for, keeps the token in sessionStorage only, and signs out', async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await page.goto('/dead-letters');
      await page.getByLabel('API token').fill(local.chronos.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/dead-letters');
      expect(page.url()).not.toContain(local.chronos.token);
      const stored = {
        session: await page.evaluate<string>('JSON.stringify(sessionStorage)'),
        local: await page.evaluate<string>('JSON.stringify(localStorage)'),
      };
      expect(stored.session).toContain(local.chronos.token);
      expect(stored.local).not.toContain(local.chronos.token);
      await expect
        .poll(() => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).count())
        .toBe(1);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
      expect(await page.evaluate<string>('JSON.stringify(sessionStorage)')).not.toContain(local.chronos.token);
      // Back to a signed-in page: the token is gone, so it asks again.
      await page.goto('/jobs');
      await expect.poll(() => new URL(page.url()).pathname).toBe('/sign-in');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('follows a next parameter only within the console, however the URL parser reads it', async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      // `/\host` starts with one slash, yet the browser reads it as `//host`: another origin.
      await page.goto(`/sign-in?next=${encodeURIComponent('/\\evil.example/jobs')}`);
      await page.getByLabel('API token').fill(local.chronos.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.url()).toBe(`${local.url}/jobs`);
      await expect
        .poll(() => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).count())
        .toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('gives the operator token the monitoring view only, with no refused call on the way', async () => {
    const { context, page, errors } = await openPage(browser, local.url);
    try {
      await page.goto('/');
      await page.getByLabel('API token').fill(local.adminToken);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe('/health');
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).count()).toBe(0);
      await page.goto('/jobs');
      await expect.poll(() => new URL(page.url()).pathname).toBe('/health');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
