/**
 * Quotas at the door of job creation and change. Body checks come first (400, nothing written);
 * only a request that is valid takes a token from the tenant's create bucket (429 with
 * Retry-After when empty) and a place under its active-job quota (429 QUOTA_EXCEEDED), in one
 * write: both or neither.
 */
import { type FieldProblem, ValidationError } from '../errors.ts';
import type { Schedule, Target } from '../model.ts';
import type { JobAdmissions } from './ports.ts';
import { checkMinInterval, checkPayloadSize } from './quota-checks.ts';
import { QuotaExceededError, RateLimitedError } from './quota-errors.ts';
import type { TenantQuotas } from './quotas.ts';

export interface AdmissionDeps {
  admissions: JobAdmissions;
}

/** What a job (new or changed) would send and when: the parts quotas judge. */
export interface QuotaSubject {
  target?: Target;
  secretHeaders?: Record<string, string>;
  schedule?: Schedule;
}

/** Throws ValidationError listing every quota a body breaks (minimum interval, payload size). */
export function checkBodyQuotas(subject: QuotaSubject, quotas: TenantQuotas): void {
  const problems: FieldProblem[] = [];
  if (subject.schedule) checkMinInterval(subject.schedule, quotas.minIntervalSeconds, problems);
  if (subject.target) checkPayloadSize(subject.target, subject.secretHeaders, quotas.maxPayloadBytes, problems);
  else if (subject.secretHeaders)
    checkPayloadSize({ headers: {} }, subject.secretHeaders, quotas.maxPayloadBytes, problems);
  if (problems.length > 0) throw new ValidationError(problems);
}

/**
 * One admitted job: its create tells it when the job is stored (create-job.ts); until then,
 * `release` gives the place (and the job's count) back, and after it does nothing — the job exists.
 */
export interface JobAdmission {
  stored(): void;
  release(): Promise<void>;
}

/**
 * Admits one new job for `tenantId`: body quotas, then the create rate and the active-job quota
 * (a request refused by both is told the rate's retry delay).
 */
export async function admitNewJob(
  deps: AdmissionDeps,
  tenantId: string,
  subject: QuotaSubject,
  quotas: TenantQuotas,
  now: number,
): Promise<JobAdmission> {
  checkBodyQuotas(subject, quotas);
  const decision = await deps.admissions.admit(
    tenantId,
    { perSecond: quotas.createsPerSecond, burst: quotas.createBurst },
    quotas.maxActiveJobs,
    now,
  );
  if (!decision.admitted && decision.reason === 'rate') throw new RateLimitedError(decision.retryAfterSeconds);
  if (!decision.admitted) {
    throw new QuotaExceededError(
      'maxActiveJobs',
      `this tenant has ${quotas.maxActiveJobs} active jobs, its quota; cancel or finish some first`,
    );
  }
  let stored = false;
  return {
    stored: () => {
      stored = true;
    },
    release: async () => {
      if (!stored) await deps.admissions.release(tenantId);
    },
  };
}
