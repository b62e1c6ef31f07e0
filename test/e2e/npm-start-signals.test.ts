/**
 * `npm start` stops the way Docker, systemd, CI runners, `timeout` and a terminal stop it: one
 * signal to one process, and within seconds no process of its tree is left and no port it
 * bound (the API's, DynamoDB Local's, the SQS and CloudWatch emulators') is still listening.
 */
import { describe, it } from 'vitest';
import { freePort } from '#local/emulators/free-port';
import {
  bannerPorts,
  commandLineOf,
  descendantsOf,
  eventually,
  isAlive,
  isPortFree,
  killAll,
  spawnNpmStart,
} from '../support/npm-start.ts';

/** Generous for a loaded machine; a clean stop takes about a second. */
const STOP_WITHIN_MS = 10_000;

interface Tree {
  npm: number;
  /** The Node process running bin/local.ts (the deepest, should a launcher sit in between). */
  runtime: number;
}

const WAYS_TO_STOP: Array<{ name: string; stop: (tree: Tree) => void }> = [
  { name: 'SIGTERM to the npm process only', stop: ({ npm }) => process.kill(npm, 'SIGTERM') },
  // A terminal's Ctrl-C: SIGINT to the foreground process group, which npm leads here.
  { name: 'Ctrl-C (SIGINT to the foreground process group)', stop: ({ npm }) => process.kill(-npm, 'SIGINT') },
  { name: 'SIGTERM to the runtime only', stop: ({ runtime }) => process.kill(runtime, 'SIGTERM') },
  { name: 'its parent dying (SIGKILL to npm)', stop: ({ npm }) => process.kill(npm, 'SIGKILL') },
  { name: 'the runtime killed outright (SIGKILL)', stop: ({ runtime }) => process.kill(runtime, 'SIGKILL') },
];

// Concurrent: each start spends most of its time waiting for a JVM, and each has its own ports.
describe('npm start stops cleanly', () => {
  it.concurrent.for(WAYS_TO_STOP)(
    '$name: every process of the tree ends and every port is freed',
    { timeout: 90_000 },
    // Concurrent tests assert through their own context's expect.
    async ({ stop }, { expect }) => {
      const port = await freePort();
      const npm = spawnNpmStart([], { PORT: String(port), HOST: '127.0.0.1' });
      let tree: number[] = [];
      try {
        await npm.waitFor(/Chronos is running[\s\S]*Ctrl-C/, 75_000);
        tree = descendantsOf(npm.pid);
        const ports = bannerPorts(npm.output());
        expect(ports).toContain(port);
        expect(ports.length).toBe(4);
        expect(tree.some((pid) => commandLineOf(pid).includes('DynamoDBLocal'))).toBe(true);
        for (const bound of ports) expect(await isPortFree(bound), `port ${bound} before the stop`).toBe(false);
        const runtime = tree.filter((pid) => commandLineOf(pid).includes('bin/local.ts')).at(-1) as number;
        expect(runtime).toBeDefined();

        stop({ npm: npm.pid, runtime });

        const gone = await eventually(() => [npm.pid, ...tree].every((pid) => !isAlive(pid)), STOP_WITHIN_MS);
        const left = [npm.pid, ...tree].filter(isAlive).map((pid) => `${pid} ${commandLineOf(pid).slice(0, 120)}`);
        expect(gone, `still running:\n${left.join('\n')}\noutput:\n${npm.output()}`).toBe(true);
        for (const bound of ports) expect(await isPortFree(bound), `port ${bound} after the stop`).toBe(true);
      } finally {
        killAll([npm.pid, ...tree]);
      }
    },
  );
});
