/**
 * The run state machine. A run is one attempt of one occurrence of a job:
 *
 *   QUEUED ──claim──▶ RUNNING ──▶ SUCCEEDED | FAILED | TIMED_OUT
 *     │                  │  └──▶ CANCELLED (job cancelled) | SKIPPED (overlap forbidden)
 *     └──▶ CANCELLED     └──(lease expired, reclaimed)──▶ RUNNING
 *     ▲                  │
 *     └──(released)──────┘  the executor failed before its call and gives the claim back
 *
 * Terminal states never change again; the completion handler reacts to the move into one.
 */
export const RUN_STATUSES = [
  'QUEUED',
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'CANCELLED',
  'SKIPPED',
  'DEAD_LETTERED',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const TERMINAL_RUN_STATUSES = [
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'CANCELLED',
  'SKIPPED',
  'DEAD_LETTERED',
] as const satisfies readonly RunStatus[];
export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];

const TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  QUEUED: ['RUNNING', 'CANCELLED', 'SKIPPED', 'DEAD_LETTERED'],
  RUNNING: ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED', 'SKIPPED', 'DEAD_LETTERED'],
  SUCCEEDED: [],
  FAILED: [],
  TIMED_OUT: [],
  CANCELLED: [],
  SKIPPED: [],
  DEAD_LETTERED: [],
};

/** True when a run in `status` never changes again. */
export function isTerminal(status: RunStatus): status is TerminalRunStatus {
  return (TERMINAL_RUN_STATUSES as readonly RunStatus[]).includes(status);
}

/** True when the state machine allows moving a run from `from` to `to`. */
export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return TRANSITIONS[from].includes(to);
}
