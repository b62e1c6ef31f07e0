import type { DispatchIntent, DispatchIntents } from '#core/runs/dispatch-intent';

/** DispatchIntents in memory, with the adapter's order (by `sweepAt`, then id). */
export class InMemoryDispatchIntents implements DispatchIntents {
  readonly items = new Map<string, DispatchIntent>();
  /** Set to make `record` fail, as a throttled or unreachable table would. */
  failRecord?: Error;

  async record(intent: DispatchIntent): Promise<void> {
    if (this.failRecord) throw this.failRecord;
    this.items.set(`${intent.shard}/${intent.id}`, structuredClone(intent));
  }

  async clear(intent: Pick<DispatchIntent, 'shard' | 'id'>): Promise<void> {
    this.items.delete(`${intent.shard}/${intent.id}`);
  }

  async findDue(shard: string, until: number, limit: number): Promise<DispatchIntent[]> {
    return [...this.items.values()]
      .filter((intent) => intent.shard === shard && intent.sweepAt <= until)
      .sort((a, b) => a.sweepAt - b.sweepAt || a.id.localeCompare(b.id))
      .slice(0, limit)
      .map((intent) => structuredClone(intent));
  }
}
