/**
 * Local IAM for startLocalChronos: the synthesized stacks (cached), the policy table over this
 * instance's tables and queues, and the enforcement middleware switched on.
 */
import { enforceIam } from './iam-enforcement.ts';
import { buildPolicyTable, type LocalResources, type PolicyTable, type RevokedGrant } from './policy-table.ts';
import { synthesizedStacks } from './synthesized-stacks.ts';

export interface LocalIamOptions {
  /** Grants taken out of the synthesized policies (the test proving that enforcement bites). */
  revoke?: readonly RevokedGrant[];
}

/** Starts enforcing what the template grants each function; returns the table and a stop function. */
export async function startLocalIam(
  resources: LocalResources,
  options: LocalIamOptions,
  log: (message: string) => void,
): Promise<{ table: PolicyTable; stop: () => void }> {
  const table = buildPolicyTable(await synthesizedStacks(), resources, options.revoke);
  return { table, stop: enforceIam(table, log) };
}
