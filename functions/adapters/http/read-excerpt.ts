import type { Readable } from 'node:stream';

/**
 * Reads at most `maxBytes` of a response body and releases the rest, so a huge or endless
 * response neither fills memory nor bloats the run item. The excerpt is text of at most `maxBytes`
 * bytes as UTF-8, whatever the body was: bytes that are not UTF-8 (binary, another charset) become
 * U+FFFD, and as each takes three bytes, the text is cut again to stay within the bound.
 */
export async function readExcerpt(body: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // A failure while reading surfaces through the loop; the abort of a body cut short is expected.
  body.on('error', () => undefined);
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).byteLength;
      if (size >= maxBytes) break;
    }
  } finally {
    // The rest is never read: a body cut short closes its connection; one read to its end keeps it.
    body.destroy();
  }
  const bytes = Buffer.concat(chunks).subarray(0, maxBytes);
  // A cut may split a multi-byte character; the decoder replaces the broken tail instead of throwing.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return withinUtf8Bytes(text, maxBytes);
}

/** `text` cut so that its UTF-8 encoding takes at most `maxBytes`, never inside a character. */
export function withinUtf8Bytes(text: string, maxBytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.byteLength <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // Back up to the start of a character (continuation bytes are 10xxxxxx).
  while (end > 0 && ((encoded[end] ?? 0) & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString('utf8');
}
