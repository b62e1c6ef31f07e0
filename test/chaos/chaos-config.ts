/**
 * The chaos scenario's numbers in one place. Timings are chosen to be consistent with each other:
 * the SQS visibility timeout (10 s) exceeds a run's whole lease (timeout 2 s + margin 2 s) plus
 * dispatch slack, so a live executor's message never comes back while it is still calling, and a
 * hung call (4 s) always outlives its job's timeout (2 s).
 */
export interface ChaosConfig {
  /** Seeds every random choice: target faults, workload shape, kill times and victims. */
  seed: number;
  /** Multiplies the job counts (1 = the 1,000 one-time and 50 recurring jobs). */
  scale: number;
  executors: number;
  /** Parallel SQS pollers per executor process. */
  executorConcurrency: number;
  /** One scanner process per entry, each on its own schedule. */
  scannerIntervalsMs: number[];
  scanHorizonSeconds: number;
  leaseMarginSeconds: number;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  oneTimeJobs: number;
  recurringJobs: number;
  /** Share of jobs created with `delivery: at-most-once`. */
  atMostOnceShare: number;
  /** Share of one-time jobs due right away (`at` = now); the others are due up to `dueWithinMs` later. */
  immediateShare: number;
  dueWithinMs: number;
  /** One-time jobs are created at an even pace over this long. */
  feedMs: number;
  /** Recurring jobs start this long after they are created and end within `recurringSpanMs`. */
  recurringStartMs: number;
  recurringSpanMs: number;
  recurringEverySeconds: number[];
  timeoutSeconds: number;
  retry: { maxAttempts: number; initialDelaySeconds: number; maxDelaySeconds: number; multiplier: number };
  /** Target behaviour, decided per run id: shares of calls answered 500, held past the timeout, reset. */
  faults: { http500: number; hang: number; reset: number };
  hangMs: number;
  /** An executor is SIGKILLed every [min, max] ms until `killUntilMs`, then restarted at once. */
  killEveryMs: [number, number];
  killUntilMs: number;
  /** Every n-th one-time job is created through the API process (recurring and catch-up jobs all are). */
  apiCreateEvery: number;
  /** When the API process is told to hold a create whose job is written (then SIGKILLed, and restarted). */
  apiKillsAtMs: number[];
  /** When the completion process is told to hold the batch it is in after its first write. */
  completionKillsAtMs: number[];
  /** The poison job's run is due this long after it is created (at the start). */
  poisonDueAfterMs: number;
  /** When the designated scanner is armed to be killed in its next scan that sends new runs. */
  scannerKillArmAtMs: number;
  /**
   * Recurring jobs (fire_all, every `catchUpEverySeconds`, `catchUpMaxRuns` runs) that the scanners
   * find `catchUpMissedMs` behind once the workload is fed, as after a scanner outage: the pass that
   * catches them up is killed between its run puts and its send (every scanner is armed for it).
   */
  catchUpJobs: number;
  catchUpEverySeconds: number;
  catchUpMaxRuns: number;
  catchUpMissedMs: number;
  /** The SQS emulator is stopped at this time (from the workload start) for `sqsOutageMs`, then started again with its state. */
  sqsOutageAtMs: number;
  sqsOutageMs: number;
  /** How long past its release a run may stay unclaimed before the sweep sends it again. */
  sweepGraceSeconds: number;
  /** Latest time (from the workload start) to wait for every occurrence to settle. */
  settleDeadlineMs: number;
  /**
   * Workflows (issue 21), created through the API at the start: diamonds (extract -> clean, enrich
   * -> load (upstream input) -> page-oncall any_failed) and fan-outs (`fanWidth` parallel tasks ->
   * merge), each triggered `workflowTriggers` times (through the API) within `workflowTriggerWindowMs`.
   */
  diamondWorkflows: number;
  fanWorkflows: number;
  fanWidth: number;
  workflowTriggers: number;
  workflowTriggerWindowMs: [number, number];
  /**
   * When the completion process is told to hold a workflow step: the batch it is in once it has
   * put a task run (a child started, or a task's retry), before the workflow run is written.
   */
  completionWorkflowKillAtMs: number;
  /**
   * When the API process is told to hold a workflow trigger once it has sent the first tasks' runs
   * (before writing the workflow run naming them); SIGKILLed, it is restarted
   * `apiDownAfterTriggerKillMs` later, so those tasks end before the client's retry is answered.
   */
  apiTriggerKillAtMs: number;
  apiDownAfterTriggerKillMs: number;
}

export function chaosConfig(overrides: Partial<ChaosConfig> = {}): ChaosConfig {
  const scale = overrides.scale ?? Number(process.env.CHAOS_SCALE ?? 1);
  return {
    seed: Number(process.env.CHAOS_SEED ?? 4),
    scale,
    executors: 3,
    executorConcurrency: 4,
    scannerIntervalsMs: [2_000, 2_500, 3_000],
    scanHorizonSeconds: 10,
    leaseMarginSeconds: 2,
    visibilityTimeoutSeconds: 10,
    maxReceiveCount: 5,
    oneTimeJobs: Math.round(1_000 * scale),
    recurringJobs: Math.round(50 * scale),
    atMostOnceShare: 0.2,
    immediateShare: 0.1,
    dueWithinMs: 25_000,
    feedMs: 20_000,
    recurringStartMs: 3_000,
    recurringSpanMs: 40_000,
    recurringEverySeconds: [2, 3, 4, 5],
    timeoutSeconds: 2,
    retry: { maxAttempts: 3, initialDelaySeconds: 1, maxDelaySeconds: 4, multiplier: 2 },
    faults: { http500: 0.2, hang: 0.05, reset: 0.05 },
    hangMs: 4_000,
    killEveryMs: [3_000, 8_000],
    killUntilMs: 45_000,
    scannerKillArmAtMs: 8_000,
    apiCreateEvery: 10,
    apiKillsAtMs: [4_000, 15_000],
    completionKillsAtMs: [10_000, 22_000, 34_000],
    poisonDueAfterMs: 3_000,
    catchUpJobs: Math.max(1, Math.round(5 * scale)),
    catchUpEverySeconds: 2,
    catchUpMaxRuns: 15,
    catchUpMissedMs: 70_000,
    sqsOutageAtMs: 12_000,
    sqsOutageMs: 5_000,
    sweepGraceSeconds: 20,
    settleDeadlineMs: 240_000,
    diamondWorkflows: Math.max(1, Math.round(4 * scale)),
    fanWorkflows: Math.max(1, Math.round(2 * scale)),
    fanWidth: 10,
    workflowTriggers: 3,
    workflowTriggerWindowMs: [2_000, 36_000],
    completionWorkflowKillAtMs: 27_000,
    apiTriggerKillAtMs: 9_000,
    apiDownAfterTriggerKillMs: 5_000,
    ...overrides,
  };
}
