/**
 * The console's security headers: one definition for the CloudFront response headers policy and
 * the local runtime's static server, so what the browser enforces locally is what it enforces on
 * AWS (a script or style the CSP refuses fails the browser tests, not the first deploy).
 */

/** Recharts and Radix set inline `style` attributes, hence 'unsafe-inline' for styles only. */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** A year (and the subdomains): what browsers' preload lists ask for at least. */
export const CONSOLE_HSTS_MAX_AGE_SECONDS = 31_536_000;

/** What browsers are told of the console's pages: keep them, but ask before each use (a deploy shows at once). */
export const CONSOLE_CACHE_CONTROL = 'no-cache';

/** Every header the console's answers carry, as name → value. */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'strict-transport-security': `max-age=${CONSOLE_HSTS_MAX_AGE_SECONDS}; includeSubDomains`,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};
