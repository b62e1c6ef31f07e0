/**
 * Job-status moves gathered over a batch and written once per tenant at its end: the completion
 * handler finishes up to a hundred one-time jobs per stream batch, mostly of few tenants, and one
 * ADD per tenant costs what one job's move used to. The counters were never a census (a process
 * that dies between a status write and its move leaves them one off), and a batch that dies
 * before its flush loses its moves the same way.
 */
import type { JobStatus } from '../model.ts';
import { type JobStatusCounts, type JobStatusDeltas, shiftDeltas } from './ports.ts';

export interface JobCountBatch {
  /** Records moves instead of writing them; reads go straight through. */
  counts: JobStatusCounts;
  /** Writes the gathered moves, one `add` per tenant with any non-zero change, and forgets them. */
  flush(): Promise<void>;
}

export function jobCountBatch(target: JobStatusCounts): JobCountBatch {
  const pending = new Map<string, Map<JobStatus, number>>();
  const record = (tenantId: string, deltas: JobStatusDeltas) => {
    const tenant = pending.get(tenantId) ?? new Map<JobStatus, number>();
    pending.set(tenantId, tenant);
    for (const [status, delta] of Object.entries(deltas) as Array<[JobStatus, number]>) {
      tenant.set(status, (tenant.get(status) ?? 0) + delta);
    }
  };
  return {
    counts: {
      read: (scope) => target.read(scope),
      shift: async (tenantId, from, to) => record(tenantId, shiftDeltas(from, to)),
      add: async (tenantId, deltas) => record(tenantId, deltas),
    },
    flush: async () => {
      const moves = [...pending.entries()];
      pending.clear();
      await Promise.all(
        moves.map(([tenantId, deltas]) => {
          const changed = Object.fromEntries([...deltas.entries()].filter(([, delta]) => delta !== 0));
          return Object.keys(changed).length === 0 ? undefined : target.add(tenantId, changed);
        }),
      );
    },
  };
}
