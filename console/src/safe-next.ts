/**
 * Where sign-in goes next: the `next` parameter only when it is a path of this origin. Checking
 * for a leading `/` is not enough: the URL parser reads `/\evil.com` (and `/<tab>/evil.com`) as
 * `//evil.com`, another origin, so the path is resolved the way the browser will and its origin
 * compared; anything else goes to `/`.
 */
export function safeNext(next: string | null, origin: string): string {
  if (!next?.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return '/';
  }
  return url.origin === origin ? `${url.pathname}${url.search}${url.hash}` : '/';
}
