/**
 * What the checks look at: the plan, the stored jobs and runs (read straight from the tables),
 * every call the target saw, and every kill. Also reads the tables.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import type { ChaosConfig } from './chaos-config.ts';
import type { TargetCall } from './chaos-target.ts';
import type { Kill } from './fleet.ts';
import type { CreatedJob } from './workload.ts';
import type { WorkflowCase } from './workload-workflows.ts';

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
  /** How many times the scanner's sweep sent the run (its message never came, or it was a parked retry). */
  sweeps?: number;
  httpStatus?: number;
  /** A workflow task's run: its workflow run and task. */
  workflowRunId?: string;
  taskKey?: string;
}

/** One task's state in a stored workflow run (functions/core/workflows/stored.ts WorkflowTaskState). */
export interface StoredTaskState {
  status: string;
  runId?: string;
  attempt?: number;
  completedAt?: number;
  httpStatus?: number;
  errorType?: string;
  skippedReason?: string;
}

/** A workflow run as the workflow-runs table holds it. */
export interface StoredWorkflowRun {
  workflowRunId: string;
  workflowId: string;
  scheduledFor: number;
  status: string;
  round: number;
  version: number;
  tasks: Record<string, StoredTaskState>;
  graph: Array<{ key: string; dependsOn: string[]; when: string; taskJobId: string }>;
  completedAt?: number;
}

/** What a scanner killed while holding a send had done. */
export interface ScannerHold {
  scan: number;
  /** Every run the scan asked to put, including puts in flight at the kill. */
  createdRunIds: string[];
  /** The runs the scan saw created and had not sent (an earlier send of the same scan may have carried others): nothing but the sweep can send them. */
  confirmedRunIds?: string[];
  /** The runs of the send it was holding. */
  heldRunIds: string[];
}

export interface RetrySettings {
  maxAttempts: number;
  initialDelaySeconds: number;
  maxDelaySeconds: number;
  multiplier: number;
}

/** A job the workload created through the API process: every answer (or connection error) it got, in order. */
export interface ApiCreate {
  name: string;
  /** `201`, another status, a connection error code (`ECONNRESET`, `UND_ERR_SOCKET`...), `201 replayed` (a retry answered with the job an earlier try wrote). */
  tries: string[];
}

/** The poison case: a one-time job whose first attempt's message fails on every receive. */
export interface PoisonCase {
  jobId: string;
  /** Its first attempt, which must end DEAD_LETTERED without a call. */
  runId: string;
  /** Receives the executors refused (each a failed delivery SQS counts). */
  refusals: number;
  /** When the coordinator saw the run DEAD_LETTERED through the API. */
  deadLetteredSeenAt?: number;
  /** Answers to POST /v1/runs/{runId}/retry, in order (a status or a connection error). */
  redriveAnswers: Array<number | string>;
  /** The new attempt the 202 named. */
  redrivenRunId?: string;
}

/**
 * The numbers of the run's design that the checks derive their bounds and floors from (never
 * from what a run happened to measure).
 */
export interface ChaosDesign {
  /** Each call's timeout. */
  timeoutMs: number;
  /** A claim's lease is the timeout plus this margin. */
  leaseMarginMs: number;
  /** How long past its release a run may stay unclaimed before the sweep sends it. */
  sweepGraceMs: number;
  /** The longest interval between two scans of one scanner. */
  scannerIntervalMaxMs: number;
  /** An executor is SIGKILLed every [min, max] ms until `killUntilMs` after the start. */
  killEveryMs: [number, number];
  killUntilMs: number;
  /** The target's shares of calls answered 500, held past the timeout, reset. */
  faults: { http500: number; hang: number; reset: number };
  /** The workload's share of at-most-once jobs. */
  atMostOnceShare: number;
}

/** The design numbers of a chaos configuration. */
export function designOf(config: ChaosConfig): ChaosDesign {
  return {
    timeoutMs: config.timeoutSeconds * 1000,
    leaseMarginMs: config.leaseMarginSeconds * 1000,
    sweepGraceMs: config.sweepGraceSeconds * 1000,
    scannerIntervalMaxMs: Math.max(...config.scannerIntervalsMs),
    killEveryMs: config.killEveryMs,
    killUntilMs: config.killUntilMs,
    faults: config.faults,
    atMostOnceShare: config.atMostOnceShare,
  };
}

export interface Evidence {
  plans: CreatedJob[];
  retry: RetrySettings;
  jobs: StoredJob[];
  runs: StoredRun[];
  calls: TargetCall[];
  kills: Kill[];
  /** What the scanner killed mid-scan had done: the runs its scan put, and those of the send it was in. */
  scannerHold?: ScannerHold;
  /** The scanners killed while sending the runs of a misfire catch-up (fire_all) pass. */
  catchUpHolds?: ScannerHold[];
  /** The SQS emulator's outage: stopped (gracefully) at, and started again (same port, same state) at. */
  sqsOutage?: { stoppedAt: number; restartedAt: number };
  /** Runs of every dispatch send that failed (scanners, API, completion): left to the sweep. */
  unsentRunIds?: string[];
  design: ChaosDesign;
  visibilityTimeoutMs: number;
  /** The creates an API process held when it was killed: their jobs were written, their 201 never sent. */
  writtenUnanswered?: string[];
  /** Jobs created through the API process (which is killed mid-create), with their tries. */
  apiCreates?: ApiCreate[];
  /** The poison message's run, dead-lettered and re-driven. */
  poison?: PoisonCase;
  /** The workflows of the workload (created and triggered through the API), with their triggers' answers. */
  workflows?: WorkflowCase[];
  /** Every workflow run of the workflow-runs table. */
  workflowRuns?: StoredWorkflowRun[];
  /** The completion process held (then SIGKILLed) in a workflow step: the task run it had just put, and its batch's runs. */
  stepHolds?: Array<{ taskRunId: string; batchRunIds: string[] }>;
  /** The API process held (then SIGKILLed) in a workflow trigger: the runs it had sent, the workflow run not yet written. */
  triggerHolds?: Array<{ taskRunId: string; sentRunIds: string[] }>;
  /** The least number of kills each role killed once in a while must have had (checks-kills.ts). */
  minKills?: Partial<Record<'completion' | 'dead-letter' | 'api', number>>;
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
  tables: { jobs: string; runs: string; workflowRuns: string },
): Promise<{ jobs: StoredJob[]; runs: StoredRun[]; workflowRuns: StoredWorkflowRun[] }> {
  const [jobItems, runItems, workflowRunItems] = await Promise.all([
    scanTable(documents, tables.jobs),
    scanTable(documents, tables.runs),
    scanTable(documents, tables.workflowRuns),
  ]);
  return {
    workflowRuns: workflowRunItems.filter(
      (item) => typeof item.workflowRunId === 'string',
    ) as unknown as StoredWorkflowRun[],
    jobs: jobItems.filter(
      (item) => typeof item.jobId === 'string' && typeof item.status === 'string',
    ) as unknown as StoredJob[],
    runs: runItems.filter((item) => typeof item.runId === 'string') as unknown as StoredRun[],
  };
}
