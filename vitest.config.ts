import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Node's on-disk cache of compiled modules (the AWS SDK, Powertools, the CLI...) for every process
// the run starts: each test file's worker, and the processes tests spawn (CLI commands, chaos
// executors), inherit it. Measured: a third of a second less CPU per process that loads the handlers.
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('node_modules/.cache/node-compile-cache', import.meta.url));

/**
 * Files that judge timing against the wall clock (a start lag, calls per second at a target, a
 * retry's lateness), and the chaos run, whose dozen processes would starve whatever ran beside it:
 * they run after the rest, one at a time, so that another file's load on the two cores does not
 * decide them. Everything else runs two files at a time.
 */
const TIMING = [
  'test/e2e/flow-control-rate.test.ts',
  'test/e2e/priority-lanes.test.ts',
  'test/e2e/early-release.test.ts',
  'test/e2e/recurring-jobs.test.ts',
  'test/e2e/tenant-fairness.test.ts',
  'test/chaos/chaos.test.ts',
];

export default defineConfig({
  test: {
    // Local IAM reads the synthesized templates: synthesized once here, cached for every file.
    // The browser tests serve console/dist: built once here when its sources changed.
    // DynamoDB Local starts from a class-data archive: made here on a clean clone, beside the other two.
    globalSetup: [
      'test/support/warm-dynamodb-local.ts',
      'test/support/warm-synth-cache.ts',
      'test/support/build-console.ts',
    ],
    // Integration and end-to-end files each start their own emulators; two cores run two files at once.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for a page or a process to catch up: Vitest's default second is too short
    // with two files and their emulators beside it (CI: a filtered run list shown after more than
    // 1 s). A poll that passes sooner returns sooner.
    expect: { poll: { timeout: 10_000 } },
    // Handlers log JSON at INFO in production; tests keep warnings and errors only.
    env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
    // Every local Chronos a test starts checks its API's answers against the OpenAPI document.
    setupFiles: ['test/support/openapi-conformance-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts', 'console/test/**/*.test.ts'],
          exclude: TIMING,
        },
      },
      {
        extends: true,
        test: { name: 'timing', include: TIMING, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
