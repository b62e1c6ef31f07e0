/** Starts the fauxqs SQS emulator in this process on a free port. */
import { startFauxqs } from 'fauxqs';
import type { RunningEmulator } from './dynamodb-local.ts';

export async function startSqsEmulator(options: { port?: number } = {}): Promise<RunningEmulator> {
  const server = await startFauxqs({ port: options.port ?? 0, logger: false });
  return { endpoint: server.address, stop: () => server.stop() };
}
