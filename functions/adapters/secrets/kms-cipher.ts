/**
 * The deployed SecretCipher: KMS envelope encryption. Each seal asks KMS for a fresh AES-256 data
 * key (GenerateDataKey, with the context as KMS encryption context), encrypts locally with it and
 * stores only the KMS-wrapped copy; opening asks KMS to Decrypt that copy under the same context.
 * The create and update functions may only GenerateDataKey, the executor only Decrypt.
 */
import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { SecretCipher } from '#core/secrets/secret-cipher';
import { contextBytes, envelopeOf, gcmOpen, gcmSeal, partsOf } from './aes-gcm.ts';

export class KmsSecretCipher implements SecretCipher {
  constructor(
    private readonly kms: KMSClient,
    private readonly keyId: string,
  ) {}

  async seal(plaintext: string, context: Record<string, string>): Promise<string> {
    const dataKey = await this.kms.send(
      new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    if (!dataKey.Plaintext || !dataKey.CiphertextBlob) throw new Error('KMS returned no data key');
    try {
      return envelopeOf(
        dataKey.CiphertextBlob,
        gcmSeal(dataKey.Plaintext, Buffer.from(plaintext), contextBytes(context)),
      );
    } finally {
      dataKey.Plaintext.fill(0);
    }
  }

  async open(sealed: string, context: Record<string, string>): Promise<string> {
    const { wrappedKey, payload } = partsOf(sealed);
    const dataKey = await this.kms.send(
      new DecryptCommand({ CiphertextBlob: wrappedKey, EncryptionContext: context, KeyId: this.keyId }),
    );
    if (!dataKey.Plaintext) throw new Error('KMS returned no plaintext key');
    try {
      return gcmOpen(dataKey.Plaintext, payload, contextBytes(context)).toString('utf8');
    } finally {
      dataKey.Plaintext.fill(0);
    }
  }
}
