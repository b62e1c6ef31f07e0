/**
 * Vitest setup (vitest.config.ts `setupFiles`): every local Chronos a test starts checks each
 * answer of its API against the OpenAPI document, and a test during which an answer was off the
 * document, or a handler read a variable its deployed function is not given, fails, naming it —
 * without any test file doing anything for it. Answers of test-double
 * handlers (`handlers.api`) are the test's own business and are not checked; a test that passes
 * its own `onApiResponse` replaces the check.
 */
import { afterEach, vi } from 'vitest';
import { takeRefusedReads } from '#local/aws-fidelity/function-environments';
import type { LocalChronosOptions } from '#local/chronos-local';
import { failOnViolations } from './openapi-violations.ts';

vi.mock('#local/chronos-local', async (importOriginal) => {
  const original = await importOriginal<typeof import('#local/chronos-local')>();
  const { checkRealHandlers } = await import('./openapi-violations.ts');
  return {
    ...original,
    startLocalChronos: (options: LocalChronosOptions = {}) =>
      original.startLocalChronos({
        onApiResponse: checkRealHandlers(Object.keys(options.handlers?.api ?? {})),
        ...options,
      }),
  };
});

afterEach(failOnViolations);

// A handler that read a variable its deployed function is not given (function-environments.ts)
// fails the test, even where the handler only logged the error and went on.
afterEach(() => {
  const refused = takeRefusedReads().map((error) => error.message);
  if (refused.length > 0)
    throw new Error(`read what the deployed functions are not given:\n${[...new Set(refused)].join('\n')}`);
});
