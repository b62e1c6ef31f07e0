/**
 * Reads at most `maxBytes` of a response body and releases the rest, so a huge or endless
 * response neither fills memory nor bloats the run item.
 */
export async function readExcerpt(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks).subarray(0, maxBytes);
  // A cut may split a multi-byte character; the decoder replaces the broken tail instead of throwing.
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}
