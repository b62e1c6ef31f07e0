/**
 * How a job's lane (`priority`) and flow-control key (`flowControl`) are stored: inside its
 * `policies` map, as `policies.dispatch`, not as attributes of their own. The scanner reads due
 * jobs from the due-index, whose INCLUDE projection lists the attributes it carries, and
 * CloudFormation cannot change a deployed index's projection (only its throughput): a new
 * top-level attribute would never reach the scanner of a stage deployed before it, and its
 * scheduled runs would all go to the normal lane. `policies` has been projected from the start.
 * Only this module knows: the core sees `priority` and `flowControl` on the job.
 */
import type { Job } from '#core/model';

type DispatchFields = Pick<Job, 'priority' | 'flowControl'>;
type WithPolicies = { policies?: object } & DispatchFields;

/** The item to store for `job`: its lane and key moved into `policies.dispatch` (absent when it has neither). */
export function jobItemOf<T extends WithPolicies>(job: T): Record<string, unknown> {
  const { priority, flowControl, ...rest } = job;
  if (priority === undefined && flowControl === undefined) return rest;
  const dispatch: DispatchFields = {
    ...(priority === undefined ? {} : { priority }),
    ...(flowControl === undefined ? {} : { flowControl }),
  };
  return { ...rest, policies: { ...rest.policies, dispatch } };
}

/**
 * The job a stored item holds: `policies.dispatch` back to `priority` and `flowControl`. An item
 * written with them at the top (a workflow task item) is read as it is.
 */
export function jobOfItem<T>(item: Record<string, unknown>): T {
  const policies = item.policies as (Record<string, unknown> & { dispatch?: DispatchFields }) | undefined;
  if (policies?.dispatch === undefined) return item as T;
  const { dispatch, ...jobPolicies } = policies;
  return { ...item, policies: jobPolicies, ...dispatch } as T;
}
