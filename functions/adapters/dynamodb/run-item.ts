/** How a run is stored: the domain fields plus its table keys. */
import type { Run, RunKey } from '#core/model';
import { RUNS_TABLE } from './table-definitions.ts';

export type RunItem = Run & { pk: string; sk: string; expiresAt?: number };

/** The runs table key of an attempt. */
export function runTableKey(key: RunKey): { pk: string; sk: string } {
  return {
    [RUNS_TABLE.partitionKey]: `${key.tenantId}#${key.jobId}`,
    [RUNS_TABLE.sortKey]: `${String(key.scheduledFor).padStart(13, '0')}#${String(key.attempt).padStart(3, '0')}`,
  } as { pk: string; sk: string };
}

/** The stored item for a run. */
export function toRunItem(run: Run & { expiresAt?: number }): RunItem {
  return { ...run, ...runTableKey(run) };
}

/** The domain run of a stored item (table keys dropped). */
export function fromRunItem(item: Record<string, unknown>): Run {
  const { pk: _pk, sk: _sk, expiresAt: _ttl, ...run } = item as unknown as RunItem;
  return run;
}
