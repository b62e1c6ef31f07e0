import { describe, expect, it } from 'vitest';
import { canTransition, isTerminal, RUN_STATUSES, TERMINAL_RUN_STATUSES } from '#core/run-state';

describe('run state machine', () => {
  it('treats exactly the terminal statuses as terminal', () => {
    const terminal = RUN_STATUSES.filter(isTerminal);
    expect(terminal).toEqual([...TERMINAL_RUN_STATUSES]);
    expect(isTerminal('QUEUED')).toBe(false);
    expect(isTerminal('RUNNING')).toBe(false);
  });

  it('lets a queued run be claimed, cancelled or dead-lettered but not succeed without running', () => {
    expect(canTransition('QUEUED', 'RUNNING')).toBe(true);
    expect(canTransition('QUEUED', 'CANCELLED')).toBe(true);
    expect(canTransition('QUEUED', 'SUCCEEDED')).toBe(false);
  });

  it('lets a running run finish or be taken over', () => {
    for (const to of ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'RUNNING'] as const)
      expect(canTransition('RUNNING', to)).toBe(true);
    // A claim given back before the call (the executor failed before calling).
    expect(canTransition('RUNNING', 'QUEUED')).toBe(true);
  });

  it('never moves a terminal run', () => {
    for (const from of TERMINAL_RUN_STATUSES) {
      for (const to of RUN_STATUSES) expect(canTransition(from, to)).toBe(false);
    }
  });
});
