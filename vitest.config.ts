import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'console/test/**/*.test.ts'],
    // Local IAM reads the synthesized templates: synthesized once here, cached for every file.
    // The browser tests serve console/dist: built once here when its sources changed.
    globalSetup: ['test/support/warm-synth-cache.ts', 'test/support/build-console.ts'],
    // Integration and end-to-end files each start their own emulators; two cores run two files at once.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Handlers log JSON at INFO in production; tests keep warnings and errors only.
    env: { POWERTOOLS_LOG_LEVEL: 'WARN' },
    // Every local Chronos a test starts checks its API's answers against the OpenAPI document.
    setupFiles: ['test/support/openapi-conformance-setup.ts'],
  },
});
