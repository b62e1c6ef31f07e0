/**
 * Issue #22 in words, the same on every page: a priority badge (text first, colour second), a
 * flow-control setting (`key stripe: 10/s, 2 in flight at most`) and the time a run waited for
 * its key (`waited 3.2 s for key stripe`).
 */
import type { FlowControlSettings, Priority } from '@chronos/client';
import { formatMs } from './format.ts';

const PRIORITY_TONES: Readonly<Record<Priority, string>> = {
  high: 'bg-rose-100 text-rose-900',
  normal: 'bg-slate-100 text-slate-800',
  low: 'bg-slate-200 text-slate-700',
};

export function PriorityBadge({ priority = 'normal' }: { priority?: Priority }) {
  return (
    <span
      data-testid="priority"
      className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${PRIORITY_TONES[priority]}`}
    >
      {priority} priority
    </span>
  );
}

export function flowControlText(flow: FlowControlSettings): string {
  const limits = [
    flow.ratePerSecond === undefined ? undefined : `${flow.ratePerSecond}/s`,
    flow.parallelism === undefined ? undefined : `${flow.parallelism} in flight at most`,
  ].filter(Boolean);
  return `key ${flow.key}: ${limits.join(', ')}`;
}

/** `waited 3.2 s for key stripe`, or nothing for a run that did not wait. */
export function WaitedText({ waitedMs, flow }: { waitedMs?: number; flow?: FlowControlSettings | null }) {
  if (waitedMs === undefined) return null;
  return (
    <span data-testid="run-waited" className="block text-xs text-amber-900">
      waited {formatMs(waitedMs)}
      {flow ? ` for key ${flow.key}` : ''}
    </span>
  );
}
