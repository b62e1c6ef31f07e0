/**
 * What the checks look at: the plan, the stored jobs and runs (read straight from the tables),
 * every call the target saw, and every kill. Also reads the tables.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import type { TargetCall } from './chaos-target.ts';
import type { Kill } from './fleet.ts';
import type { CreatedJob } from './workload.ts';

export interface StoredJob {
  jobId: string;
  name?: string;
  status: string;
  version?: number;
  nextFireAt?: number;
  occurrenceCount?: number;
}

export interface StoredRun {
  runId: string;
  createdAt?: number;
  jobId: string;
  scheduledFor: number;
  attempt: number;
  status: string;
  completedAt?: number;
  nextAttemptAt?: number;
  availableAt?: number;
  recoveries?: number;
  claimedAt?: number;
  leaseExpiresAt?: number;
  startedAt?: number;
  errorType?: string;
  retryAfterSeconds?: number;
}

export interface RetrySettings {
  maxAttempts: number;
  initialDelaySeconds: number;
  maxDelaySeconds: number;
  multiplier: number;
}

export interface Evidence {
  plans: CreatedJob[];
  retry: RetrySettings;
  jobs: StoredJob[];
  runs: StoredRun[];
  calls: TargetCall[];
  kills: Kill[];
  /** What the scanner killed mid-scan had done: the runs its scan put, and those of the send it was in. */
  scannerHold?: { scan: number; createdRunIds: string[]; heldRunIds: string[] };
  dispatchSlackMs: number;
  visibilityTimeoutMs: number;
}

/** Every item of `table`, page by page. */
export async function scanTable(documents: DynamoDBDocument, table: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.scan({ TableName: table, ExclusiveStartKey: startKey, ConsistentRead: true });
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** The jobs and runs of the tables (other items, such as counters, are left out). */
export async function readTables(
  documents: DynamoDBDocument,
  tables: { jobs: string; runs: string },
): Promise<{ jobs: StoredJob[]; runs: StoredRun[] }> {
  const [jobItems, runItems] = await Promise.all([
    scanTable(documents, tables.jobs),
    scanTable(documents, tables.runs),
  ]);
  return {
    jobs: jobItems.filter(
      (item) => typeof item.jobId === 'string' && typeof item.status === 'string',
    ) as unknown as StoredJob[],
    runs: runItems.filter((item) => typeof item.runId === 'string') as unknown as StoredRun[],
  };
}
