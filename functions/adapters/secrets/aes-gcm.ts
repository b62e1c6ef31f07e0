/**
 * AES-256-GCM with the encryption context as additional authenticated data, and the envelope
 * format both ciphers store: `v1.<wrapped data key>.<sealed payload>`, base64url parts, each
 * sealed part being iv (12 bytes) | tag (16 bytes) | ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Canonical bytes of a context (sorted keys), bound to the ciphertext. */
export function contextBytes(context: Record<string, string>): Buffer {
  return Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/** Encrypts with a 32-byte key. */
export function gcmSeal(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** Decrypts what gcmSeal returned; throws when the key, the data or the AAD differ. */
export function gcmOpen(key: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Buffer {
  const bytes = Buffer.from(sealed);
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAAD(aad);
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
}

export function envelopeOf(wrappedKey: Uint8Array, payload: Uint8Array): string {
  return `v1.${Buffer.from(wrappedKey).toString('base64url')}.${Buffer.from(payload).toString('base64url')}`;
}

export function partsOf(envelope: string): { wrappedKey: Buffer; payload: Buffer } {
  const [version, wrapped, payload] = envelope.split('.');
  if (version !== 'v1' || !wrapped || !payload) throw new Error('not a sealed secret this version can open');
  return { wrappedKey: Buffer.from(wrapped, 'base64url'), payload: Buffer.from(payload, 'base64url') };
}
