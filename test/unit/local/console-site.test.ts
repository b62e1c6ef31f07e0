/**
 * The local static server of the console (functions/local/console-site.ts) against a real HTTP
 * server: a file that disappears between its check and its read (a `vite build` emptying
 * console/dist under a running `npm start`) is a 404 for that request, never a crash of the runtime.
 */

import type * as fs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>();
  // Opens the file only once it has been removed, as a concurrent rebuild would.
  const createReadStream = (path: fs.PathLike, options?: unknown) => {
    if (String(path).endsWith('vanishing.js')) real.rmSync(path);
    return real.createReadStream(path, options as Parameters<typeof real.createReadStream>[1]);
  };
  return { ...real, createReadStream, default: { ...real, createReadStream } };
});

const { serveConsole } = await import('#local/console-site');

let root: string;
let server: Server;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'console-site-'));
  writeFileSync(join(root, 'index.html'), '<div id="root"></div>');
  server = createServer((req, res) => {
    if (!serveConsole(root, req, res, new URL(req.url ?? '/', 'http://local').pathname)) res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

describe('the console static server', () => {
  it('answers 404 for a file removed between its check and its read, and goes on serving', async () => {
    writeFileSync(join(root, 'vanishing.js'), 'export {};');
    const gone = await fetch(`${base}/vanishing.js`);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toBe('Not found');

    const page = await fetch(`${base}/jobs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  });
});
