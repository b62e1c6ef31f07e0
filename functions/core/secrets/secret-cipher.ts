/**
 * Envelope encryption of secrets at rest, as a port: KMS on AWS (a data key per seal, wrapped by
 * the stage's KMS key), a local key in the local runtime. `context` is bound to the ciphertext
 * (KMS encryption context / AES-GCM additional data): a secret sealed for one tenant cannot be
 * opened as another's.
 */
export interface SecretCipher {
  /** Encrypts `plaintext`; the result is an opaque, printable string safe to store. */
  seal(plaintext: string, context: Record<string, string>): Promise<string>;
  /** Decrypts what `seal` returned with the same context; throws if either was tampered with. */
  open(sealed: string, context: Record<string, string>): Promise<string>;
}
