/** Reproducible randomness: a seeded generator for sequences and a keyed hash for per-item choices. */
import { createHash } from 'node:crypto';

/** mulberry32: a small, fast PRNG; the same seed yields the same sequence in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A uniform number in [0, 1) that depends only on `seed` and `key`: the same run always gets the same fate. */
export function keyedUniform(seed: number, key: string): number {
  return createHash('sha256').update(`${seed}:${key}`).digest().readUInt32BE(0) / 4_294_967_296;
}
