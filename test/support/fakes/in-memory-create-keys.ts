import type { CreateKeyBinding, CreateKeyRepository } from '#core/ports';

/** Create Idempotency-Keys in memory, with the adapter's semantics (an expired binding is absent). */
export class InMemoryCreateKeys implements CreateKeyRepository {
  readonly bindings = new Map<string, CreateKeyBinding & { expiresAt: number }>();

  async bind(tenantId: string, key: string, binding: CreateKeyBinding, now: number, expiresAt: number) {
    const name = `${tenantId}/${key}`;
    const existing = this.bindings.get(name);
    if (existing && existing.expiresAt >= Math.floor(now / 1000)) {
      return { jobId: existing.jobId, fingerprint: existing.fingerprint };
    }
    this.bindings.set(name, { ...binding, expiresAt });
    return undefined;
  }
}
