/**
 * The SDK's SHA-256 (request signing), with HMAC keys held as KeyObjects. Given a byte-array key,
 * node:crypto's createHmac first asks whether it is a KeyObject, and for anything else that
 * question is answered by a thrown and caught native exception: on every signed request, since
 * SigV4's daily signing key is bytes. A KeyObject made once per key (the SDK caches its signing
 * key, so the same array comes back) takes the fast path. Same digests, same interface.
 */
import {
  type BinaryLike,
  createHash,
  createHmac,
  createSecretKey,
  type Hash,
  type Hmac,
  type KeyObject,
} from 'node:crypto';
import type { Checksum, SourceData } from '@smithy/types';

const keyObjects = new WeakMap<object, KeyObject>();

function hmacKey(secret: SourceData): string | KeyObject {
  if (typeof secret === 'string') return secret;
  let key = keyObjects.get(secret);
  if (!key) {
    const bytes = ArrayBuffer.isView(secret)
      ? Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength)
      : Buffer.from(secret);
    key = createSecretKey(bytes);
    keyObjects.set(secret, key);
  }
  return key;
}

export class KeyedSha256 implements Checksum {
  readonly digestLength = 32;
  private hash: Hash | Hmac;
  private finished = false;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.create();
  }

  update(data: Uint8Array): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(data as BinaryLike);
  }

  async digest(): Promise<Uint8Array> {
    // A plain hash may be read again (copy); an HMAC is final, as in the SDK's own class.
    let bytes: Buffer;
    if (this.secret) {
      this.finished = true;
      bytes = this.hash.digest();
    } else {
      bytes = (this.hash as Hash).copy().digest();
    }
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  reset(): void {
    this.hash = this.create();
    this.finished = false;
  }

  private create(): Hash | Hmac {
    return this.secret ? createHmac('sha256', hmacKey(this.secret)) : createHash('sha256');
  }
}
