/**
 * What flow control keeps per key (one item per tenant and key): the limits most recently written
 * by a job or workflow that names the key, the rate's next free instant, the slots' holders, and
 * the runs waiting — each waiting run's reservation (rate) or its place in line and its message
 * (parallelism: a releaser hands its slot to the first in line and sends that message).
 */
import type { DispatchMessage } from '../model.ts';
import type { Priority } from '../priority.ts';
import type { FlowControlSettings } from './flow-control-settings.ts';
import type { SlotHolder } from './parallel-slots.ts';

/** A run waiting for one of the key's slots. */
export interface SlotWaiter {
  /** When it first had to wait for the key: its `waitedMs` counts from here. */
  since: number;
  lane: Priority;
  /** The message the releaser sends to wake it. */
  message: DispatchMessage;
}

/** A run waiting for its reserved start instant (rate). */
export interface StartReservation {
  at: number;
  since: number;
}

export interface FlowKeyState {
  key: string;
  /** The limits most recently written for the key (absent: none written yet). */
  ratePerSecond?: number;
  parallelism?: number;
  /** When the limits were last written. */
  updatedAt?: number;
  /** The rate's next free start instant (rate-reservation.ts). */
  nextFreeAt?: number;
  holders: SlotHolder[];
  reserved: Record<string, StartReservation>;
  waiters: Record<string, SlotWaiter>;
}

export type FlowKeyChange<T> = { result: T; next?: FlowKeyState };

export interface FlowKeyStore {
  /** Writes the key's limits (a job or workflow naming it was created or changed); its slots and waiters stay. */
  writeLimits(tenantId: string, settings: FlowControlSettings, now: number): Promise<void>;
  read(tenantId: string, key: string): Promise<FlowKeyState | undefined>;
  /**
   * Reads the key, lets `decide` (pure) say what it becomes, and writes that only if nobody wrote
   * the key meanwhile, deciding again on a conflict: concurrent runs never take the same instant
   * nor more slots than the limit.
   */
  change<T>(tenantId: string, key: string, decide: (state: FlowKeyState | undefined) => FlowKeyChange<T>): Promise<T>;
}
