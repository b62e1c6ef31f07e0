/**
 * A job or workflow write that names a flow-control key makes its limits the key's (the limits of
 * a key are the ones most recently written: there is no PUT). Runs read them as they pass the key.
 */
import type { FlowControlSettings } from '#core/flow-control/flow-control-settings';
import { flowKeys } from '../wiring.ts';

export async function writeFlowLimits(
  tenantId: string,
  settings: ReadonlyArray<FlowControlSettings | null | undefined>,
  now: number,
): Promise<void> {
  for (const each of settings) if (each) await flowKeys().writeLimits(tenantId, each, now);
}
