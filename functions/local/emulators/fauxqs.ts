/**
 * Starts the fauxqs SQS emulator in this process on a free port of 127.0.0.1. fauxqs' own
 * `startFauxqs` listens on every interface (0.0.0.0): anyone on the network could read and send
 * the dispatch queue's messages. Its app is built here and bound to the loopback interface only.
 */
import { buildApp } from 'fauxqs';
import type { RunningEmulator } from './dynamodb-local.ts';

/** The only interface the local emulators listen on. */
export const EMULATOR_HOST = '127.0.0.1';

export async function startSqsEmulator(options: { port?: number } = {}): Promise<RunningEmulator> {
  const app = buildApp({ logger: false });
  const endpoint = await app.listen({ port: options.port ?? 0, host: EMULATOR_HOST });
  return { endpoint, stop: () => app.close() };
}
