/**
 * The chaos run in the suite (issue 4): 1,000 one-time and 50 recurring jobs against a target
 * that fails, hangs and resets, with executor processes SIGKILLed and restarted, a scanner
 * SIGKILLed mid-scan and another in a misfire catch-up pass, the completion handler SIGKILLed
 * mid-batch, the API mid-create and the dead-letter consumer holding a dead letter, a poison
 * message dead-lettered and re-driven, and the SQS emulator stopped for a few seconds; every
 * execution guarantee is checked afterwards (checks.ts, checks-kills.ts). The same run is
 * `npm run chaos` on its own.
 */
import { expect, it } from 'vitest';
import { runChaos } from './scenario.ts';

/** Startup, the workload (~65 s), the settle deadline (240 s after the start at worst) and the final reads. */
const CHAOS_TIMEOUT_MS = 330_000;

it(
  'keeps every execution guarantee while executors, scanners, the completion handler, the dead-letter consumer and the API are killed and SQS stops',
  async () => {
    const outcome = await runChaos();
    console.log(outcome.report);

    expect(outcome.results.filter((result) => !result.ok).map((result) => `${result.name}: ${result.numbers}`)).toEqual(
      [],
    );
  },
  CHAOS_TIMEOUT_MS,
);
