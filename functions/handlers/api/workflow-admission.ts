/**
 * What create-workflow and update-workflow do for tenants before a workflow is written, as
 * job-admission.ts does for jobs: the tenant's body quotas for every task (payload size, named
 * `tasks.<i>.…`) and the schedule (minimum interval), then for a create the create rate and a
 * place under the active-job quota (a workflow counts as one job), and each task's secret headers
 * sealed into its target, so that they reach storage encrypted only.
 */
import { type FieldProblem, ValidationError } from '#core/errors';
import type { Schedule } from '#core/model';
import { sealSecretHeaders } from '#core/secrets/secret-headers';
import { admitNewJob, checkBodyQuotas, type JobAdmission } from '#core/tenants/admit-job';
import type { TenantQuotas } from '#core/tenants/quotas';
import type { SealedTask } from '#core/use-cases/workflows/task-items';
import type { NewWorkflowFields, ParsedTask, WorkflowChange } from '#core/workflows/parse-workflow';
import { admissionDeps, quotasOf, secretCipher } from '../wiring.ts';

/**
 * Admits a new workflow and seals its tasks' secret headers; `create` writes it, and tells the
 * admission once the workflow is stored. A create that fails before that gives its place back.
 */
export async function admittedWorkflowCreate<T>(
  tenantId: string,
  fields: NewWorkflowFields,
  now: number,
  create: (
    definition: Omit<NewWorkflowFields, 'tasks'> & { tasks: SealedTask[] },
    admission: JobAdmission,
  ) => Promise<T>,
): Promise<T> {
  const quotas = await quotasOf(tenantId);
  checkWorkflowQuotas(fields.tasks, fields.schedule, quotas);
  // The body quotas are checked above; the admission takes the create rate and the active-job place.
  const admission = await admitNewJob(admissionDeps(), tenantId, {}, quotas, now);
  try {
    return await create({ ...fields, tasks: await sealedTasks(tenantId, fields.tasks) }, admission);
  } catch (error) {
    await admission.release();
    throw error;
  }
}

/** Checks a change against the tenant's body quotas and seals a new version's secret headers. */
export async function admittedWorkflowChange(
  tenantId: string,
  change: WorkflowChange,
): Promise<Omit<WorkflowChange, 'tasks'> & { tasks?: SealedTask[] }> {
  const { tasks, ...rest } = change;
  if (tasks || change.schedule) {
    checkWorkflowQuotas(tasks ?? [], change.schedule ?? undefined, await quotasOf(tenantId));
  }
  return tasks ? { ...rest, tasks: await sealedTasks(tenantId, tasks) } : rest;
}

/** Every body quota the tasks and the schedule break, each task's named under `tasks.<index>`. */
function checkWorkflowQuotas(tasks: readonly ParsedTask[], schedule: Schedule | undefined, quotas: TenantQuotas) {
  const problems: FieldProblem[] = [];
  const collect = (prefix: string, check: () => void) => {
    try {
      check();
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...error.details.map(({ field, reason }) => ({ field: `${prefix}${field}`, reason })));
    }
  };
  if (schedule) collect('', () => checkBodyQuotas({ schedule }, quotas));
  for (const [index, task] of tasks.entries()) {
    const subject = { target: task.target, ...(task.secretHeaders ? { secretHeaders: task.secretHeaders } : {}) };
    collect(`tasks.${index}.`, () => checkBodyQuotas(subject, quotas));
  }
  if (problems.length > 0) throw new ValidationError(problems);
}

async function sealedTasks(tenantId: string, tasks: readonly ParsedTask[]): Promise<SealedTask[]> {
  return Promise.all(
    tasks.map(async ({ secretHeaders, ...task }) => {
      const sealed = await sealSecretHeaders(secretCipher(), tenantId, secretHeaders);
      return sealed ? { ...task, target: { ...task.target, secretHeaders: sealed } } : task;
    }),
  );
}
