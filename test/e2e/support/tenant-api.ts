/** A small client of the local API for the security tests: one bearer token per caller. */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field
  body: any;
  headers: Headers;
}

export type Api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;

/** Calls `baseUrl` with `Authorization: Bearer <token>` (no header at all when token is undefined). */
export function apiAs(baseUrl: string, token: string | undefined): Api {
  return async (method, path, body, headers = {}) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: kept as text, the assertion will say so
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
}
