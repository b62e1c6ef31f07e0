/**
 * A fresh executor's first call is its slowest: undici's request, client and HTTP parser are
 * compiled on first use, which delays the request by ~30 ms on an idle host and three times that
 * on a busy one — at a burst's due second, when every new executor makes its first call at once.
 * That lag is paid against the due time (precision) and against a key's rate: instants are spaced
 * for calls reaching the target at most ~100 ms apart from when they were meant to.
 *
 * So the executor makes one call at start-up, to a server of its own on the loopback interface,
 * through an invoker of its own (never the targets' one, which refuses loopback): every code path
 * of a call is compiled before the first run is called. Best effort: a warm-up that fails only
 * leaves the first call slow, as it was.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpTargetInvoker } from './invoker.ts';

/** A warm-up never holds an executor's start-up longer than this. */
export const WARM_UP_TIMEOUT_MS = 2_000;

/** Makes one call as a job's is made, to a server of its own on 127.0.0.1; resolves whether it did. */
export async function warmUpHttpClient(timeoutMs = WARM_UP_TIMEOUT_MS): Promise<boolean> {
  const server = createServer((request, response) => {
    request.resume();
    response.setHeader('content-type', 'text/plain');
    response.end('warm');
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const { port } = server.address() as AddressInfo;
    // The invoker a job's call goes through, with an agent of its own allowed the loopback interface.
    const result = await new HttpTargetInvoker(64, { rules: { allowLoopback: true } }).invoke({
      url: `http://127.0.0.1:${port}/`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'warm-up' },
      body: '{}',
      timeoutMs,
    });
    return result.kind === 'response' && result.bodyExcerpt === 'warm';
  } catch {
    return false;
  } finally {
    // Its connection closes with the server's: the invoker's agent keeps nothing open.
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
