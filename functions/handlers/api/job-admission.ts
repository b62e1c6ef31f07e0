/**
 * What create-job and update-job do for tenants before a job is written: the tenant's quotas
 * (body quotas → 400, create rate → 429 with Retry-After, active jobs → 429) and sealing the
 * secret headers into the target, so that they reach storage encrypted only. Also the meter of
 * runs created outside the schedule (trigger, PATCH, resume, re-drive → 429 with Retry-After).
 */
import type { NewJobFields } from '#core/job-input';
import { sealSecretHeaders } from '#core/secrets/secret-headers';
import { admitNewJob, checkBodyQuotas, type JobAdmission } from '#core/tenants/admit-job';
import { type RunCreationMeter, runCreationMeter } from '#core/tenants/run-creation-meter';
import type { JobChange } from '#core/update-input';
import { admissionDeps, quotasOf, secretCipher, triggerRateLimiter } from '../wiring.ts';

/** The tenant's trigger bucket for one request at `now`; the tenant's quotas are read only if it is used. */
export function runMeterOf(tenantId: string, now: number): RunCreationMeter {
  return runCreationMeter(triggerRateLimiter(), tenantId, () => quotasOf(tenantId), now);
}

/**
 * Admits a new job and seals its secret headers; `create` writes it, and tells the admission once
 * the job is stored. A create that fails before that gives its place back (and its count).
 */
export async function admittedCreate<T>(
  tenantId: string,
  parsed: { fields: NewJobFields; secretHeaders?: Record<string, string> },
  now: number,
  create: (fields: NewJobFields, admission: JobAdmission) => Promise<T>,
): Promise<T> {
  const { fields, secretHeaders } = parsed;
  const quotas = await quotasOf(tenantId);
  const subject = { target: fields.target, schedule: fields.schedule, ...(secretHeaders ? { secretHeaders } : {}) };
  const admission = await admitNewJob(admissionDeps(), tenantId, subject, quotas, now);
  try {
    const sealed = await sealSecretHeaders(secretCipher(), tenantId, secretHeaders);
    return await create(
      sealed ? { ...fields, target: { ...fields.target, secretHeaders: sealed } } : fields,
      admission,
    );
  } catch (error) {
    await admission.release();
    throw error;
  }
}

/** Checks a change against the tenant's body quotas and seals a new target's secret headers. */
export async function admittedChange(
  tenantId: string,
  parsed: { change: JobChange; secretHeaders?: Record<string, string> },
): Promise<JobChange> {
  const { change, secretHeaders } = parsed;
  if (change.target || change.schedule) {
    const quotas = await quotasOf(tenantId);
    checkBodyQuotas(
      {
        ...(change.target ? { target: change.target } : {}),
        ...(change.schedule ? { schedule: change.schedule } : {}),
        ...(secretHeaders ? { secretHeaders } : {}),
      },
      quotas,
    );
  }
  if (!change.target) return change;
  const sealed = await sealSecretHeaders(secretCipher(), tenantId, secretHeaders);
  return sealed ? { ...change, target: { ...change.target, secretHeaders: sealed } } : change;
}
