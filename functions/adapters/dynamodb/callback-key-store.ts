/**
 * The keys of callback tokens (core/async/callback-token.ts), kept sealed (KMS on AWS, the local
 * key locally: the secrets cipher) in one item of the tenants table, newest first. The first
 * function that needs a key and finds none makes one (a conditional put: two racing cold starts
 * agree on the winner's, read back). Opened keys are cached per process; a key added by a
 * rotation is picked up within CALLBACK_KEYS_CACHE_MS, and the older ones still open tokens.
 *
 * The seal's context names its purpose alone: the functions that open it (the executor, the
 * callback routes) may Decrypt under that context only, never a tenant's secrets.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { newCallbackKey } from '#core/async/callback-token';
import type { CallbackKeys } from '#core/async/ports';
import type { SecretCipher } from '#core/secrets/secret-cipher';
import { isConditionFailure } from './conditional.ts';

export const CALLBACK_KEYS_ITEM = { pk: 'SYSTEM#callback-keys', sk: 'KEYS' } as const;
/** The KMS encryption context of the sealed keys: what the grants of the functions that open them name. */
export const CALLBACK_KEYS_CONTEXT = { purpose: 'chronos-callback-token-keys' } as const;
export const CALLBACK_KEYS_CACHE_MS = 300_000;

export class StoredCallbackKeys implements CallbackKeys {
  private cached?: { keys: readonly string[]; until: number };
  private loading?: Promise<readonly string[]>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly cipher: SecretCipher,
    /**
     * False for the callback routes: they only open tokens, and no token exists before the first
     * call of an async job made the key (with no key, every token is refused as not valid).
     */
    private readonly createIfMissing = true,
    private readonly now: () => number = Date.now,
  ) {}

  async keys(): Promise<readonly string[]> {
    if (this.cached && this.cached.until > this.now()) return this.cached.keys;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<readonly string[]> {
    const sealed = (await this.readSealed()) ?? (this.createIfMissing ? await this.create() : []);
    const keys = await Promise.all(sealed.map((one) => this.cipher.open(one, { ...CALLBACK_KEYS_CONTEXT })));
    // No key yet is not cached: the executor's first async call makes one, and its token must open at once.
    if (keys.length > 0) this.cached = { keys, until: this.now() + CALLBACK_KEYS_CACHE_MS };
    return keys;
  }

  private async readSealed(): Promise<string[] | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: CALLBACK_KEYS_ITEM, ConsistentRead: true }),
    );
    const keys = Item?.keys as string[] | undefined;
    return keys && keys.length > 0 ? keys : undefined;
  }

  /** Makes the first key; a racing function's key wins if it was first. */
  private async create(): Promise<string[]> {
    const sealed = [await this.cipher.seal(newCallbackKey(), { ...CALLBACK_KEYS_CONTEXT })];
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...CALLBACK_KEYS_ITEM, keys: sealed, createdAt: this.now() },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return sealed;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const winner = await this.readSealed();
      if (!winner) throw error;
      return winner;
    }
  }
}
