/**
 * A local Chronos that runs only the executor, in its own process, on the emulators and tables of
 * a test's instance (argv[2]: ExecutorProcessSettings as JSON): a test can SIGKILL it in the middle
 * of a call, as Lambda's runtime can die, and start another. Tells its parent `ready` over IPC.
 */
import { startLocalChronos } from '#local/chronos-local';
import type { LocalEndpoints } from '#local/emulators/local-clients';

export interface ExecutorProcessSettings {
  endpoints: LocalEndpoints;
  namePrefix: string;
  secretsLocalKey: string;
  leaseMarginSeconds: number;
}

const settings = JSON.parse(process.argv[2] ?? '{}') as ExecutorProcessSettings;
await startLocalChronos({
  endpoints: settings.endpoints,
  namePrefix: settings.namePrefix,
  secretsLocalKey: settings.secretsLocalKey,
  leaseMarginSeconds: settings.leaseMarginSeconds,
  components: { api: false, scanner: false, completion: false, deadLetters: false, notifier: false },
  log: () => undefined,
});
process.send?.({ type: 'ready' });
// Until the parent kills it (or goes away).
process.on('disconnect', () => process.exit(0));
