import { NotFoundError } from '#core/errors';
import type { SigningSecretStore, StoredSigningSecret } from '#core/tenants/signing-secrets';

/** SigningSecretStore in memory; tenants must be declared, as the real one checks the tenant item. */
export class InMemorySigningSecrets implements SigningSecretStore {
  readonly items = new Map<string, StoredSigningSecret>();
  lists = 0;

  constructor(private readonly tenants: Set<string> = new Set(['t'])) {}

  async rotate(
    secret: StoredSigningSecret,
    expire: ReadonlyArray<{ secretId: string; expiresAt: number }>,
    remove: readonly string[],
  ): Promise<void> {
    if (!this.tenants.has(secret.tenantId)) throw new NotFoundError(`tenant ${secret.tenantId}`);
    this.items.set(secret.secretId, { ...secret });
    for (const { secretId, expiresAt } of expire) {
      const item = this.items.get(secretId);
      if (item) this.items.set(secretId, { ...item, expiresAt });
    }
    for (const secretId of remove) this.items.delete(secretId);
  }

  async list(tenantId: string): Promise<StoredSigningSecret[]> {
    this.lists += 1;
    return [...this.items.values()].filter((item) => item.tenantId === tenantId).map((item) => ({ ...item }));
  }
}
