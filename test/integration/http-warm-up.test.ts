/**
 * The executor's start-up call (adapters/http/warm-up.ts): made through undici on the loopback
 * interface, it answers whether it was made, and leaves nothing open behind it — a server or a
 * socket left over would keep a Lambda's event loop busy and a local executor from exiting. How
 * much sooner a fresh executor's first call arrives is the bench's to show (precision N = 8).
 */
import { describe, expect, it } from 'vitest';
import { warmUpHttpClient } from '#adapters/http/warm-up';

/** Open servers and sockets of this process, by kind. */
function openNetworkResources(): string[] {
  return process.getActiveResourcesInfo().filter((kind) => kind.startsWith('TCP'));
}

describe('HTTP client warm-up', () => {
  it('makes its call and closes its server and socket', async () => {
    const before = openNetworkResources();

    await expect(warmUpHttpClient()).resolves.toBe(true);

    // Closing is asynchronous on the sockets' side: the handles go on the next turns of the loop.
    for (let i = 0; i < 50 && openNetworkResources().length > before.length; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(openNetworkResources()).toEqual(before);
  });

  it('answers false rather than throwing when its call does not finish in time', async () => {
    const before = openNetworkResources();

    await expect(warmUpHttpClient(0)).resolves.toBe(false);

    for (let i = 0; i < 50 && openNetworkResources().length > before.length; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(openNetworkResources()).toEqual(before);
  });
});
