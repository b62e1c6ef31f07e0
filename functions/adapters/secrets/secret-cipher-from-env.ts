/** Picks the SecretCipher the environment configures: KMS when a key id is set, else the local key. */
import { KMSClient } from '@aws-sdk/client-kms';
import type { SecretCipher } from '#core/secrets/secret-cipher';
import { ENV } from '../environment.ts';
import { KmsSecretCipher } from './kms-cipher.ts';
import { LocalSecretCipher } from './local-cipher.ts';

/** Throws on first use when neither is set: sealing must never silently fall back to plaintext. */
export function secretCipherFromEnv(env: Record<string, string | undefined> = process.env): SecretCipher {
  const keyId = env[ENV.secretsKmsKeyId];
  // The SDK reads AWS_ENDPOINT_URL_KMS itself (LocalStack); no endpoint is set here.
  if (keyId) return new KmsSecretCipher(new KMSClient({}), keyId);
  const localKey = env[ENV.secretsLocalKey];
  if (localKey) return new LocalSecretCipher(localKey);
  const missing = async () => {
    throw new Error(
      `Neither ${ENV.secretsKmsKeyId} nor ${ENV.secretsLocalKey} is set: secrets cannot be sealed or opened`,
    );
  };
  return { seal: missing, open: missing };
}
