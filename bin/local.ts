/**
 * `npm start`: Chronos on this machine, no AWS account needed. Starts DynamoDB Local and fauxqs,
 * provisions the tables and queues, and serves the API with the real handlers until stopped.
 * `npm start -- --help` lists its options and environment variables (functions/local/start-options.ts).
 *
 * Stopping: Ctrl-C, SIGTERM (to npm, which passes it on, or to this process), SIGHUP, or the
 * parent process ending all stop every component and emulator; DynamoDB Local's JVM also exits
 * by itself when this process is gone, however it ends (dynamodb-local.ts).
 */

import type { LocalChronos } from '#local/chronos-local';
import { ensureJava } from '#local/emulators/java';
import { startBanner } from '#local/start-banner';
import { HELP, memorySecrets, parseStartOptions, prepareDataDir } from '#local/start-options';
import { checkCanListen, listenErrorLine, onParentExit } from '#local/start-process';

/** A stop that hangs (a component that never returns) must not keep the ports: exit anyway. */
const STOP_TIMEOUT_MS = 15_000;

const options = parseStartOptions(process.argv.slice(2), process.env);
if (options.kind === 'help') {
  console.log(HELP);
  process.exit(0);
}
if (options.kind === 'invalid') {
  console.error(options.message);
  process.exit(2);
}
const { port, host, dataDir } = options;

let chronos: LocalChronos | undefined;
let stopping = false;
async function shutDown(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Still starting: nothing to stop gracefully; the JVM follows this process out (its stdin closes).
  if (!chronos) process.exit(1);
  console.log(`\n${reason}: stopping Chronos...`);
  setTimeout(() => {
    console.error(`Chronos did not stop within ${STOP_TIMEOUT_MS / 1000} s: exiting anyway.`);
    process.exit(1);
  }, STOP_TIMEOUT_MS).unref();
  try {
    await chronos.stop();
    console.log('Chronos stopped.');
    process.exit(0);
  } catch (error) {
    console.error('Chronos did not stop cleanly', error);
    process.exit(1);
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutDown(signal));
onParentExit(() => void shutDown('the process that started Chronos exited'));

function failToStart(error: unknown): never {
  const line = listenErrorLine(error, host, port);
  if (line) console.error(line);
  else console.error('Chronos could not start:', error);
  process.exit(1);
}

// Checked before the emulators spend seconds starting; the API's own listen is checked again below.
await checkCanListen(host, port).catch(failToStart);
ensureJava();
const secrets = dataDir === undefined ? memorySecrets() : prepareDataDir(dataDir, process.env);

console.log(`Starting Chronos locally (DynamoDB Local + fauxqs${dataDir ? `, data in ${dataDir}` : ''})...`);
// Imported here, not above: `--help` and a port in use answer without loading the handlers.
const { startLocalChronos } = await import('#local/chronos-local');
const { ensureConsoleBuilt } = await import('#local/console-build');
// Built only when console/ changed since the last build (a second start does not wait for Vite).
let consoleDir: string;
try {
  consoleDir = ensureConsoleBuilt((line) => console.log(line));
} catch (error) {
  // Vite's own output says what failed; no stack trace of ours on top of it.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
chronos = await startLocalChronos({ port, host, consoleDir, ...(dataDir ? { dataDir } : {}), ...secrets }).catch(
  failToStart,
);
console.log(startBanner(chronos, dataDir, secrets.adminToken));
