/**
 * What a process last saw of a few items (a bucket's `tat`, a flow key's item), kept only as a
 * hint for the next request's first try: never for a decision, which the conditional write makes.
 * Bounded, since a Lambda instance lives on: past `capacity` the least recently written is dropped.
 */
export class LastSeen<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  set(key: string, value: V): void {
    // Deleted first so the Map's insertion order is the order of last writes.
    this.values.delete(key);
    this.values.set(key, value);
    if (this.values.size > this.capacity) this.values.delete(this.values.keys().next().value as string);
  }

  delete(key: string): void {
    this.values.delete(key);
  }

  get size(): number {
    return this.values.size;
  }
}
