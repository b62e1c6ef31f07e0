/**
 * Vitest global setup: synthesizes the CDK templates local IAM enforces (functions/local/aws-fidelity)
 * once, before any test file starts, so that two workers on a cold cache do not both synthesize.
 */
import { synthesizedStacks } from '#local/aws-fidelity/synthesized-stacks';

export default async function warmSynthCache(): Promise<void> {
  await synthesizedStacks();
}
