/**
 * Admission of a new job in one write: the tenant's create bucket and its active-job counter live
 * on the tenant item, and a create takes a token and a place together, in one conditional update,
 * or neither (issue #15: it was two writes on two items, one write unit more per create).
 *
 * The bucket is GCRA (token-bucket.ts) as `createTat`: idle (`createTat <= now`) it becomes
 * `now + interval`; busy it moves on by one interval while within the burst, so concurrent creates
 * each move it atomically and none is refused for losing a race. The counter (`activeJobs < max`)
 * only counts up — jobs end in many places and none decrements it — and when it reaches the quota
 * the real number is counted once (a Query of the jobs that can still fire) and set, at most every
 * RECOUNT_AFTER_MS. A refused create writes nothing; a create that fails after admission gives its
 * place back (`release`), not its token (as the bucket never did).
 *
 * The same write counts the job among the tenant's `ACTIVE` jobs (`admittedJobs`, a share of the
 * job-status counter read with it, admitted-jobs.ts), so a create moves no counter of its own:
 * one write unit less again. `release` takes that back too; a create that dies between its
 * admission and its job's write leaves it one high (the counters are counters, not a census).
 */
import { type DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AdmissionDecision, JobAdmissions } from '#core/tenants/ports';
import { type BucketLimits, gcraDecide, gcraParameters } from '#core/tenants/token-bucket';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { LastSeen } from './last-seen.ts';
import { JOBS_TABLE } from './table-definitions.ts';
import { tenantKeys } from './tenant-keys.ts';

/** A tenant found at its quota is recounted at most this often. */
export const RECOUNT_AFTER_MS = 2_000;
/** Tenants whose last `createTat` a process remembers, at most (a Lambda instance serves a few). */
const MAX_REMEMBERED = 10_000;
/**
 * Writes one admission may try: each failed one either decides (rate, quota) or found the bucket
 * had changed state (idle ↔ busy) under a concurrent create, which a few tries always outlast.
 */
const MAX_TRIES = 4;

const AT_QUOTA: AdmissionDecision = { admitted: false, reason: 'quota' };
const HAS_ROOM = '(attribute_not_exists(activeJobs) OR activeJobs < :max)';

type Form = 'idle' | 'busy';
interface Admission {
  createTat?: number;
  activeJobs?: number;
}
type WriteResult = { updated: true; tat: number } | { updated: false; old?: Admission };

export class DynamoJobAdmissions implements JobAdmissions {
  /**
   * The `createTat` this process last saw per tenant. A tenant creating at its rate finds the
   * bucket busy on almost every create, and trying the idle form first would cost a failed
   * conditional write (a write unit) before the busy one. Only the order of tries depends on it.
   */
  readonly #seen = new LastSeen<number>(MAX_REMEMBERED);

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tenantsTable: string,
    private readonly jobsTable: string,
  ) {}

  async admit(tenantId: string, limits: BucketLimits, maxActiveJobs: number, now: number): Promise<AdmissionDecision> {
    let form: Form = (this.#seen.get(tenantId) ?? 0) > now ? 'busy' : 'idle';
    let recounted = false;
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const result = await this.write(tenantId, form, limits, maxActiveJobs, now);
      if (result.updated) {
        this.#seen.set(tenantId, result.tat);
        return { admitted: true };
      }
      // No item: the tenant is gone (its token was checked a moment ago); nothing to admit into.
      if (!result.old) return AT_QUOTA;
      const { createTat, activeJobs } = result.old;
      if (createTat !== undefined) this.#seen.set(tenantId, createTat);
      const rate = gcraDecide(createTat, limits, now);
      if (!rate.allowed) return { admitted: false, reason: 'rate', retryAfterSeconds: rate.retryAfterSeconds };
      if (activeJobs !== undefined && activeJobs >= maxActiveJobs) {
        if (recounted || !(await this.recount(tenantId, now))) return AT_QUOTA;
        recounted = true;
      }
      form = createTat !== undefined && createTat > now ? 'busy' : 'idle';
    }
    // Every try lost to a concurrent create changing the bucket's state: busy enough to retry later.
    return { admitted: false, reason: 'rate', retryAfterSeconds: 1 };
  }

  async release(tenantId: string): Promise<void> {
    // The place only while the counter has one to give (a recount since may have set it lower);
    // the job-status share always, as the admission always added it.
    const released = await this.updateTenant(
      tenantId,
      'ADD activeJobs :minusOne, admittedJobs :minusOne',
      'attribute_exists(pk) AND activeJobs > :zero',
      { ':minusOne': -1, ':zero': 0 },
    );
    if (!released)
      await this.updateTenant(tenantId, 'ADD admittedJobs :minusOne', 'attribute_exists(pk)', { ':minusOne': -1 });
  }

  /** One conditional update of the tenant item; false when its condition failed. */
  private async updateTenant(
    tenantId: string,
    update: string,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tenantsTable,
          Key: tenantKeys.tenant(tenantId),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  private async write(
    tenantId: string,
    form: Form,
    limits: BucketLimits,
    max: number,
    now: number,
  ): Promise<WriteResult> {
    const { intervalMs, toleranceMs } = gcraParameters(limits);
    const bucket =
      form === 'idle'
        ? {
            set: 'createTat = :next',
            condition: '(attribute_not_exists(createTat) OR createTat <= :now)',
            values: { ':next': now + intervalMs, ':now': now },
          }
        : {
            set: 'createTat = createTat + :step',
            condition: 'createTat > :now AND createTat <= :limit',
            values: { ':step': intervalMs, ':now': now, ':limit': now + toleranceMs },
          };
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tenantsTable,
          Key: tenantKeys.tenant(tenantId),
          UpdateExpression: `SET ${bucket.set} ADD activeJobs :one, admittedJobs :one`,
          ConditionExpression: `attribute_exists(pk) AND ${bucket.condition} AND ${HAS_ROOM}`,
          ExpressionAttributeValues: { ...bucket.values, ':one': 1, ':max': max },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { updated: true, tat: Attributes?.createTat as number };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const old = itemOfConditionFailure<Admission>(error);
      return old ? { updated: false, old } : { updated: false };
    }
  }

  /** Sets the counter to the real number of jobs that can still fire; false when recounted too recently. */
  private async recount(tenantId: string, now: number): Promise<boolean> {
    const count = await this.countActive(tenantId);
    return this.updateTenant(
      tenantId,
      'SET activeJobs = :count, activeJobsCountedAt = :now',
      'attribute_exists(pk) AND (attribute_not_exists(activeJobsCountedAt) OR activeJobsCountedAt < :stale)',
      { ':count': count, ':now': now, ':stale': now - RECOUNT_AFTER_MS },
    );
  }

  private async countActive(tenantId: string): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.jobsTable,
          KeyConditionExpression: '#tenant = :tenant',
          // A workflow counts as one job: its head, not its task items (core/workflows/stored.ts).
          FilterExpression: '#status IN (:active, :paused) AND (attribute_not_exists(#kind) OR #kind <> :task)',
          ExpressionAttributeNames: { '#tenant': JOBS_TABLE.partitionKey, '#status': 'status', '#kind': 'kind' },
          ExpressionAttributeValues: {
            ':tenant': tenantId,
            ':active': 'ACTIVE',
            ':paused': 'PAUSED',
            ':task': 'workflow-task',
          },
          Select: 'COUNT',
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return count;
  }
}
