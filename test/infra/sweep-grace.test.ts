/**
 * A dispatch intent is written before its scanner page's puts and swept as abandoned once its
 * sweep grace has passed (core/runs/dispatch-intent.ts). A sweep that took an intent while its pass
 * still put runs would send only the runs already there and remove the intent, leaving the later
 * ones with no message and no entry. Deployed, that cannot happen while the grace outlasts any
 * scanner pass: Lambda ends the pass at the scanner's timeout.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import { DEFAULT_SWEEP_GRACE_MS } from '#core/runs/send-runs';
import { buildChronosAppForProperties, logicalIdOf } from './support/chronos-app.ts';

describe('the sweep grace of dispatch intents', () => {
  it('outlasts the scanner’s longest pass, with the deployed settings', () => {
    const chronos = buildChronosAppForProperties();
    const resources = Template.fromStack(chronos.stateless).toJSON().Resources;
    const scanner = resources[logicalIdOf(chronos.stateless.scanner.function)].Properties;
    const graceMs =
      Number(scanner.Environment.Variables[ENV.sweepGraceSeconds] ?? DEFAULT_SWEEP_GRACE_MS / 1000) * 1000;

    expect(scanner.Timeout).toBeGreaterThan(0);
    expect(graceMs).toBeGreaterThan(scanner.Timeout * 1000);
  }, 60_000);
});
