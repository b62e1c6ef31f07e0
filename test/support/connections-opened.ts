/**
 * How many connections a client opens at once: `requests` requests sent together to a server that
 * accepts and answers nothing, counted once the first 50 (the SDK's default pool) are in and a
 * moment has passed for any beyond them. Tells an SDK client's connection pool from the outside.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'vitest';

export interface SilentClient {
  client: { destroy(): void };
  send(): Promise<unknown>;
}

export async function connectionsOpened(
  requests: number,
  connect: (endpoint: string) => SilentClient,
): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer(() => {});
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { client, send } = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const pending = Array.from({ length: requests }, () => send().catch(() => undefined));
  try {
    await expect.poll(() => sockets.size).toBeGreaterThanOrEqual(Math.min(requests, 50));
    // Whatever the pool allows beyond 50 connects at about the same moment as the first 50.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return sockets.size;
  } finally {
    client.destroy();
    for (const socket of sockets) socket.destroy();
    server.close();
    await Promise.all(pending);
  }
}
