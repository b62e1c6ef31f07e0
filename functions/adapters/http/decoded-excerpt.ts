/**
 * The excerpt of a compressed answer, decoded: undici's `request` hands over a body as it was sent,
 * where fetch decoded gzip, deflate and br by itself. Chronos offers no `Accept-Encoding`, but a
 * job may send its own, and its run's excerpt (and a workflow's upstream input) must stay the text
 * the target meant. Stacked encodings, zstd and raw (headerless) deflate, which fetch also decoded,
 * are rare enough to stay as sent or undecoded: a body that says it is compressed and cannot be
 * decoded keeps no excerpt, and the run's notes say why.
 */
import { pipeline, type Transform } from 'node:stream';
import { constants, createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { headerOf, type TargetAnswer } from './guarded-request.ts';
import { readExcerpt } from './read-excerpt.ts';

/** A truncated body (its excerpt is cut anyway) decodes as far as it goes, without an error. */
const ZLIB = { finishFlush: constants.Z_SYNC_FLUSH };
const DECODERS: Record<string, () => Transform> = {
  gzip: () => createGunzip(ZLIB),
  'x-gzip': () => createGunzip(ZLIB),
  deflate: () => createInflate(ZLIB),
  br: () => createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH }),
};

export interface Excerpt {
  excerpt: string;
  /** Why the excerpt is empty though the answer had a body. */
  note?: string;
}

/** At most `maxBytes` of the answer's body, decoded when its Content-Encoding is one fetch decoded. */
export async function readDecodedExcerpt(answer: TargetAnswer, maxBytes: number): Promise<Excerpt> {
  const encoding = headerOf(answer.headers, 'content-encoding')?.trim().toLowerCase() ?? '';
  const decoder = DECODERS[encoding]?.();
  if (!decoder) return { excerpt: await readExcerpt(answer.body, maxBytes) };
  // Whichever fails first is what failed: the body (the job's timeout, a reset: the call's failure,
  // forwarded to the decoder) or the decoding (the body is not what it says).
  let failedFirst: 'body' | 'decoding' | undefined;
  answer.body.on('error', () => {
    failedFirst ??= 'body';
  });
  decoder.on('error', () => {
    failedFirst ??= 'decoding';
  });
  pipeline(answer.body, decoder, () => undefined);
  try {
    return { excerpt: await readExcerpt(decoder, maxBytes) };
  } catch (error) {
    if (failedFirst !== 'decoding') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    return {
      excerpt: '',
      note: `the answer's body is marked ${encoding} but could not be decoded (${reason}): no excerpt kept`,
    };
  }
}
