/**
 * Serves the built console (console/dist) from the local gateway, the way CloudFront serves it on
 * AWS: same origin as `/v1`, a file when the path names one, `index.html` for any other path
 * without an extension (the single-page app routes it), 404 for a missing asset, and the same
 * security headers (lib/console/security-headers.ts).
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { CONSOLE_CACHE_CONTROL, CONSOLE_SECURITY_HEADERS } from '../../lib/console/security-headers.ts';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** True for paths the console answers: everything outside the API's `/v1`. */
export function isConsolePath(pathname: string): boolean {
  return pathname !== '/v1' && !pathname.startsWith('/v1/');
}

/** The file a path names inside `root`, or undefined when it escapes it or does not exist. */
function fileFor(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  // Dotfiles (the build's .source-hash) are not part of the site.
  if (decoded.split('/').some((segment) => segment.startsWith('.'))) return undefined;
  const file = normalize(join(root, decoded));
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  return existsSync(file) && statSync(file).isFile() ? file : undefined;
}

function notFound(res: ServerResponse): void {
  res.statusCode = 404;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.setHeader('cache-control', CONSOLE_CACHE_CONTROL);
  res.end('Not found');
}

/** Answers a GET or HEAD for the console; false when the method is not one the site serves. */
export function serveConsole(root: string, req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) res.setHeader(name, value);
  const asset = fileFor(root, pathname);
  // A path without an extension is a page of the app; one with an extension is a file or a 404.
  const file = asset ?? (extname(pathname) === '' ? fileFor(root, '/index.html') : undefined);
  if (!file) {
    notFound(res);
    return true;
  }
  res.statusCode = 200;
  res.setHeader('content-type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
  // Vite names assets by content hash: cache them for good; index.html must always be fresh.
  res.setHeader(
    'cache-control',
    file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : CONSOLE_CACHE_CONTROL,
  );
  if (req.method === 'HEAD') {
    res.end();
    return true;
  }
  // The file can go between the check above and the read (a `vite build` empties console/dist while
  // a runtime serves it): that request gets a 404, and the runtime keeps running.
  createReadStream(file)
    .on('error', () => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      notFound(res);
    })
    .pipe(res);
  return true;
}
