/**
 * Local IAM for startLocalChronos: the policy table of the synthesized stacks (read once by the
 * caller, which also builds the gateway's checks from them) over this instance's tables and queues,
 * and the enforcement middleware switched on.
 */
import { enforceIam } from './iam-enforcement.ts';
import { buildPolicyTable, type LocalResources, type PolicyTable, type RevokedGrant } from './policy-table.ts';
import type { SynthesizedStacks } from './synthesized-stacks.ts';

export interface LocalIamOptions {
  /** Grants taken out of the synthesized policies (the test proving that enforcement bites). */
  revoke?: readonly RevokedGrant[];
}

/** Starts enforcing what the template grants each function; returns the table and a stop function. */
export function startLocalIam(
  stacks: SynthesizedStacks,
  resources: LocalResources,
  options: LocalIamOptions,
  log: (message: string) => void,
): { table: PolicyTable; stop: () => void } {
  const table = buildPolicyTable(stacks, resources, options.revoke);
  return { table, stop: enforceIam(table, log) };
}
