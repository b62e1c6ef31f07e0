/**
 * The signing hash the SDK clients are built with must give node:crypto's digests exactly: a
 * wrong HMAC would make every AWS request fail its signature check.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyedSha256 } from '#adapters/keyed-sha256';

const text = (value: string) => new TextEncoder().encode(value);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('KeyedSha256', () => {
  it('hashes like sha256 without a key, and a plain hash can be read twice', async () => {
    const hash = new KeyedSha256();
    hash.update(text('canonical request'));
    const expected = createHash('sha256').update('canonical request').digest('hex');
    expect(hex(await hash.digest())).toBe(expected);
    expect(hex(await hash.digest())).toBe(expected);
  });

  it('signs like createHmac with a string key and with byte keys, the same key object again included', async () => {
    const bytes = randomBytes(48);
    // A view into a larger buffer, as SDK digests are: only its own bytes are the key.
    const key = new Uint8Array(bytes.buffer, bytes.byteOffset + 8, 32);
    const expected = createHmac('sha256', Buffer.from(bytes.subarray(8, 40)))
      .update('string to sign')
      .digest('hex');
    for (let round = 0; round < 2; round++) {
      const hmac = new KeyedSha256(key);
      hmac.update(text('string to sign'));
      expect(hex(await hmac.digest())).toBe(expected);
    }
    const other = new KeyedSha256(randomBytes(32));
    other.update(text('string to sign'));
    expect(hex(await other.digest())).not.toBe(expected);

    const byString = new KeyedSha256('AWS4secret');
    byString.update(text('20261124'));
    expect(hex(await byString.digest())).toBe(createHmac('sha256', 'AWS4secret').update('20261124').digest('hex'));
  });

  it('refuses more data once an HMAC is read, and starts over after reset', async () => {
    const hmac = new KeyedSha256(randomBytes(32));
    hmac.update(text('a'));
    await hmac.digest();
    expect(() => hmac.update(text('b'))).toThrow(/finished/);
    hmac.reset();
    hmac.update(text('b'));
    expect((await hmac.digest()).length).toBe(32);
  });
});
