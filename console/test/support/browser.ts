/**
 * Debian's Chromium driven by playwright-core (a browser download cannot work here): one browser
 * per test file, a fresh context (its own sessionStorage) per test, screenshots into
 * test-results/console/, and every console error or CSP violation a page logs kept for asserting.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { chromiumPath } from './chromium.ts';

const REPOSITORY = fileURLToPath(new URL('../../..', import.meta.url));
export const SCREENSHOTS = join(REPOSITORY, 'test-results', 'console');

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** The zone the browser runs in: not UTC, so "shown in the browser's zone" is a real check. */
export const BROWSER_TIME_ZONE = 'Europe/Berlin';

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Errors the page logged (console.error, uncaught exceptions, CSP refusals). */
  errors: string[];
}

export async function openPage(browser: Browser, baseURL: string): Promise<ConsolePage> {
  const context = await browser.newContext({ baseURL, timezoneId: BROWSER_TIME_ZONE, locale: 'en-GB' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, errors };
}

/** A full-page screenshot under test-results/console/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** axe-core's serious and critical WCAG 2 A/AA violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((n) => n.target.join(' ')).join(', ')})`,
    );
}
