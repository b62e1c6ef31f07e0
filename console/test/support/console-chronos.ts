/**
 * Chronos as `npm start` runs it, for the browser tests: the local runtime with the built console
 * at its origin, an operator token, and a real HTTP target that answers 200 (and 500 on /fail).
 */
import { randomBytes } from 'node:crypto';
import {
  type LocalChronos,
  type LocalChronosOptions,
  startLocalChronos,
} from '../../../functions/local/chronos-local.ts';
import { ensureConsoleBuilt } from '../../../functions/local/console-build.ts';
import { type HttpTarget, startHttpTarget } from '../../../test/support/http-target.ts';

export interface ConsoleChronos {
  chronos: LocalChronos;
  target: HttpTarget;
  /** The console's (and the API's) origin. */
  url: string;
  adminToken: string;
  stop(): Promise<void>;
}

export async function startConsoleChronos(options: Partial<LocalChronosOptions> = {}): Promise<ConsoleChronos> {
  const target = await startHttpTarget((path) =>
    path.startsWith('/fail') ? { status: 500, body: 'boom' } : { status: 200 },
  );
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  const chronos = await startLocalChronos({
    port: 0,
    consoleDir: ensureConsoleBuilt(),
    adminToken,
    scannerIntervalMs: 1_000,
    log: () => undefined,
    ...options,
  });
  return {
    chronos,
    target,
    url: chronos.apiUrl,
    adminToken,
    async stop() {
      await chronos.stop();
      await target.close();
    },
  };
}
