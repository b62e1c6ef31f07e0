/**
 * A run as the runs-table stream shows it, bounded before anything is computed from it. The items
 * are Chronos' own, but a stream image is read without the writer's checks: a number DynamoDB
 * holds that JavaScript cannot (unmarshall throws on a huge decimal, or returns a BigInt), or an
 * instant past the stored range (bounds.ts), would otherwise throw into the completion handler or
 * put NaN into the monitoring aggregates and block the stream shard. So:
 * - an image without a usable key (ids, status, scheduledFor, attempt) is no run: undefined;
 * - an optional number outside its range is left out, as if it had never been recorded.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isIntegerBetween, isRepresentableInstant, LATEST_INSTANT, MAX_ATTEMPT_NUMBER } from '#core/bounds';
import type { Run } from '#core/model';
import { RUN_STATUSES } from '#core/run-state';

/** Why an image is not a run, for the log. */
export type ImageProblem = { reason: string };

const ONE_DAY_MS = 86_400_000;

/** Optional numeric fields of a run and the range each must lie in to be kept. */
const OPTIONAL_NUMBERS: Readonly<Record<string, (value: unknown) => boolean>> = {
  createdAt: isRepresentableInstant,
  enqueuedAt: isRepresentableInstant,
  receivedAt: isRepresentableInstant,
  claimedAt: isRepresentableInstant,
  startedAt: isRepresentableInstant,
  completedAt: isRepresentableInstant,
  leaseExpiresAt: isRepresentableInstant,
  nextAttemptAt: isRepresentableInstant,
  availableAt: isRepresentableInstant,
  deadLetteredAt: isRepresentableInstant,
  recoveries: (value) => isIntegerBetween(value, 0, MAX_ATTEMPT_NUMBER * 1000),
  httpStatus: (value) => isIntegerBetween(value, 100, 999),
  durationMs: (value) => isIntegerBetween(value, 0, ONE_DAY_MS),
  retryAfterSeconds: (value) => isIntegerBetween(value, 0, LATEST_INSTANT / 1000),
  slaSeconds: (value) => isIntegerBetween(value, 0, ONE_DAY_MS),
};

const MAX_ID_LENGTH = 1024;
const isId = (value: unknown) => typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH;

/** The run an image holds, bounded; or the problem that makes it no run. */
export function runOfImage(image: Record<string, unknown> | undefined): Run | ImageProblem | undefined {
  if (!image) return undefined;
  let raw: Record<string, unknown>;
  try {
    // Numbers come back as Number whatever their size; the range checks below judge them.
    raw = unmarshall(image as Record<string, AttributeValue>, { wrapNumbers: (text: string) => Number(text) });
  } catch (error) {
    return { reason: `unreadable image: ${(error as Error).message}` };
  }
  for (const field of ['tenantId', 'jobId', 'runId'] as const) {
    if (!isId(raw[field])) return { reason: `no valid ${field}` };
  }
  if (!(RUN_STATUSES as readonly unknown[]).includes(raw.status)) return { reason: 'no valid status' };
  if (!isRepresentableInstant(raw.scheduledFor)) return { reason: 'scheduledFor outside the stored range' };
  if (!isIntegerBetween(raw.attempt, 1, MAX_ATTEMPT_NUMBER)) return { reason: 'attempt outside its range' };
  const run: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const check = OPTIONAL_NUMBERS[name];
    if (!check || check(value)) run[name] = value;
  }
  return run as unknown as Run;
}

/** True when `runOfImage` found a run. */
export function isRun(value: Run | ImageProblem | undefined): value is Run {
  return value !== undefined && !('reason' in value);
}
