/**
 * The local runtime's SecretCipher: the same envelope as on AWS, with the data key wrapped by a
 * 32-byte key from SECRETS_LOCAL_KEY (base64) instead of KMS. The local runtime generates a key
 * at every start, so secrets sealed by one run cannot be opened by the next (nor by anyone else).
 */
import { randomBytes } from 'node:crypto';
import type { SecretCipher } from '#core/secrets/secret-cipher';
import { contextBytes, envelopeOf, gcmOpen, gcmSeal, partsOf } from './aes-gcm.ts';

export class LocalSecretCipher implements SecretCipher {
  private readonly key: Buffer;

  constructor(base64Key: string) {
    this.key = Buffer.from(base64Key, 'base64');
    if (this.key.length !== 32) throw new Error('the local secret key must be 32 bytes, base64-encoded');
  }

  /** A fresh key, base64: what the local runtime puts in SECRETS_LOCAL_KEY. */
  static generateKey(): string {
    return randomBytes(32).toString('base64');
  }

  async seal(plaintext: string, context: Record<string, string>): Promise<string> {
    const aad = contextBytes(context);
    const dataKey = randomBytes(32);
    return envelopeOf(gcmSeal(this.key, dataKey, aad), gcmSeal(dataKey, Buffer.from(plaintext), aad));
  }

  async open(sealed: string, context: Record<string, string>): Promise<string> {
    const aad = contextBytes(context);
    const { wrappedKey, payload } = partsOf(sealed);
    return gcmOpen(gcmOpen(this.key, wrappedKey, aad), payload, aad).toString('utf8');
  }
}
