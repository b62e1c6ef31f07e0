/**
 * Vitest setup (vitest.config.ts `setupFiles`): every local Chronos a test starts checks each
 * answer of its API against the OpenAPI document, and a test during which an answer was off the
 * document fails, naming it — without any test file doing anything for it. A test that wants
 * its own `onApiResponse` passes one; the check then stays out of its way.
 */
import { afterEach, vi } from 'vitest';
import type { LocalChronosOptions } from '#local/chronos-local';
import { failOnViolations } from './openapi-violations.ts';

vi.mock('#local/chronos-local', async (importOriginal) => {
  const original = await importOriginal<typeof import('#local/chronos-local')>();
  const { checkAgainstDocument } = await import('./openapi-violations.ts');
  return {
    ...original,
    startLocalChronos: (options: LocalChronosOptions = {}) =>
      original.startLocalChronos({ onApiResponse: checkAgainstDocument, ...options }),
  };
});

afterEach(failOnViolations);
