/**
 * The callback bodies: heartbeat and completion fields bounded in the units (UTF-8 bytes,
 * serialized JSON bytes), every problem naming its field, never a throw on hostile values; and
 * the schemas (schemas/callback-*.json) agreeing with the core's bounds.
 */
import { transpileSchema } from '@middy/validator/transpile';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedJson, canonicalDigest, MAX_JSON_DEPTH } from '#core/async/bounded-json';
import { MAX_COMPLETION_ERROR_BYTES, MAX_OUTPUT_BYTES, parseCompletion } from '#core/async/completion-body';
import { MAX_CHECKPOINT_BYTES, MAX_PROGRESS_MESSAGE_BYTES, parseHeartbeat } from '#core/async/heartbeat-body';
import completeSchema from '#schemas/callback-complete.json' with { type: 'json' };
import heartbeatSchema from '#schemas/callback-heartbeat.json' with { type: 'json' };

const compile = (schema: object) =>
  transpileSchema(schema, { coerceTypes: false, useDefaults: false }) as unknown as (body: unknown) => boolean;

/** A JSON string value whose serialization (with its quotes) is exactly `bytes` bytes. */
const jsonOfBytes = (bytes: number) => 'x'.repeat(bytes - 2);
const nested = (depth: number) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

describe('boundedJson', () => {
  it('serializes a value within the budget and measures UTF-8 bytes', () => {
    expect(boundedJson({ a: [1, 'é'] }, 100)).toEqual({ ok: true, json: '{"a":[1,"é"]}', bytes: 14 });
    expect(boundedJson(null, 4)).toEqual({ ok: true, json: 'null', bytes: 4 });
    expect(boundedJson(jsonOfBytes(10), 10).ok).toBe(true);
    expect(boundedJson(jsonOfBytes(11), 10)).toEqual({
      ok: false,
      reason: 'must be at most 10 bytes as JSON (it is 11)',
    });
    expect(boundedJson('é'.repeat(5), 11)).toEqual({
      ok: false,
      reason: 'must be at most 11 bytes as JSON (it is 12)',
    });
  });

  it('refuses nesting past the depth bound without overflowing the stack', () => {
    expect(boundedJson(nested(MAX_JSON_DEPTH), 1000).ok).toBe(true);
    expect(boundedJson(nested(MAX_JSON_DEPTH + 1), 1000)).toEqual({
      ok: false,
      reason: `must be nested at most ${MAX_JSON_DEPTH} levels deep`,
    });
    expect(boundedJson(nested(1_000_000), 10_000_000).ok).toBe(false);
  });

  it('refuses what is no JSON value: cycles, BigInt, functions, a lone undefined', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    cycle.again = cycle;
    expect(boundedJson(cycle, 1_000_000).ok).toBe(false);
    expect(boundedJson({ n: 10n }, 100)).toEqual({ ok: false, reason: 'must be a JSON value' });
    expect(boundedJson(() => 1, 100)).toEqual({ ok: false, reason: 'must be a JSON value' });
    expect(boundedJson(undefined, 100)).toEqual({ ok: false, reason: 'must be a JSON value' });
    const hostile = Object.defineProperty({}, 'x', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    expect(boundedJson(hostile, 100)).toEqual({ ok: false, reason: 'must be a JSON value' });
  });

  it('gives up on a value with more nodes than bytes before serializing it', () => {
    expect(
      boundedJson(
        Array.from({ length: 100 }, () => 0),
        50,
      ),
    ).toEqual({ ok: false, reason: 'is too large' });
  });

  it('digests equal for the same value in another key order, different for another value', () => {
    expect(canonicalDigest({ a: 1, b: { c: [1, 2], d: null } })).toBe(
      canonicalDigest({ b: { d: null, c: [1, 2] }, a: 1 }),
    );
    expect(canonicalDigest({ a: 1 })).not.toBe(canonicalDigest({ a: 2 }));
    expect(canonicalDigest([1, 2])).not.toBe(canonicalDigest([2, 1]));
  });

  it('never throws, and what it accepts is JSON of the bounded size that parses back equal', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 2000 }), (value, max) => {
        const result = boundedJson(value, max);
        if (result.ok) {
          expect(result.bytes).toBeLessThanOrEqual(max);
          expect(JSON.parse(result.json)).toEqual(JSON.parse(JSON.stringify(value)));
        }
      }),
    );
  });
});

describe('parseHeartbeat', () => {
  it('accepts no body and an empty object as a bare heartbeat', () => {
    expect(parseHeartbeat(undefined)).toEqual({ ok: true, heartbeat: {} });
    expect(parseHeartbeat({})).toEqual({ ok: true, heartbeat: {} });
  });

  it('keeps progress, message and the checkpoint serialized', () => {
    expect(parseHeartbeat({ progress: 42.5, message: 'half way', checkpoint: { offset: 425 } })).toEqual({
      ok: true,
      heartbeat: { progress: 42.5, message: 'half way', checkpointJson: '{"offset":425}' },
    });
    expect(parseHeartbeat({ progress: 0, checkpoint: null })).toEqual({
      ok: true,
      heartbeat: { progress: 0, checkpointJson: 'null' },
    });
  });

  it('bounds the message in UTF-8 bytes and the checkpoint serialized', () => {
    expect(parseHeartbeat({ message: 'a'.repeat(MAX_PROGRESS_MESSAGE_BYTES) }).ok).toBe(true);
    // 512 two-byte characters: 512 characters but 1,024 bytes, the most allowed; one more is too many.
    expect(parseHeartbeat({ message: 'é'.repeat(512) }).ok).toBe(true);
    expect(parseHeartbeat({ message: 'é'.repeat(513) })).toEqual({
      ok: false,
      problems: [{ field: 'message', reason: 'must be at most 1024 bytes (UTF-8)' }],
    });
    expect(parseHeartbeat({ checkpoint: jsonOfBytes(MAX_CHECKPOINT_BYTES) }).ok).toBe(true);
    const big = parseHeartbeat({ checkpoint: jsonOfBytes(MAX_CHECKPOINT_BYTES + 1) });
    expect(big.ok || big.problems.map((p) => p.field)).toEqual(['checkpoint']);
  });

  it('names every bad field', () => {
    expect(parseHeartbeat({ progress: 101, message: 7, checkpoint: 10n, colour: 'red' })).toEqual({
      ok: false,
      problems: [
        { field: 'colour', reason: 'is not an allowed field' },
        { field: 'progress', reason: 'must be a number from 0 to 100' },
        { field: 'message', reason: 'must be a string' },
        { field: 'checkpoint', reason: 'must be a JSON value' },
      ],
    });
    for (const progress of [-0.1, Number.NaN, Number.POSITIVE_INFINITY, '50', null]) {
      expect(parseHeartbeat({ progress })).toEqual({
        ok: false,
        problems: [{ field: 'progress', reason: 'must be a number from 0 to 100' }],
      });
    }
    expect(parseHeartbeat({ message: 'a\ud800' })).toEqual({
      ok: false,
      problems: [{ field: 'message', reason: 'must be well-formed Unicode (it holds a lone surrogate)' }],
    });
  });

  it.each([[[]], ['text'], [3]])('refuses %j as a body', (body) => {
    expect(parseHeartbeat(body)).toEqual({ ok: false, problems: [{ field: 'body', reason: 'must be a JSON object' }] });
  });
});

describe('parseCompletion', () => {
  it('defaults retryable to true and keeps output serialized', () => {
    const parsed = parseCompletion({ status: 'succeeded', output: { rows: 3 } });
    expect(parsed).toEqual({
      ok: true,
      completion: { status: 'succeeded', outputJson: '{"rows":3}', retryable: true, digest: expect.any(String) },
    });
    expect(parseCompletion({ status: 'failed', error: 'gone', retryable: false })).toMatchObject({
      ok: true,
      completion: { status: 'failed', error: 'gone', retryable: false },
    });
  });

  it('gives one digest to the same completion however spelled, another to a different one', () => {
    const digest = (body: unknown) => {
      const parsed = parseCompletion(body);
      if (!parsed.ok) throw new Error('fixture must parse');
      return parsed.completion.digest;
    };
    const first = digest({ status: 'failed', output: { a: 1, b: 2 } });
    expect(digest({ output: { b: 2, a: 1 }, status: 'failed', retryable: true })).toBe(first);
    expect(digest({ status: 'failed', output: { a: 1, b: 2 }, retryable: false })).not.toBe(first);
    expect(digest({ status: 'succeeded', output: { a: 1, b: 2 } })).not.toBe(first);
    expect(digest({ status: 'failed', output: { a: 1, b: 2 }, error: 'x' })).not.toBe(first);
  });

  it('requires the status and names every bad field', () => {
    expect(parseCompletion({})).toEqual({ ok: false, problems: [{ field: 'status', reason: 'is required' }] });
    expect(parseCompletion({ status: 'done', retryable: 'yes', error: 5, extra: 1 })).toEqual({
      ok: false,
      problems: [
        { field: 'extra', reason: 'is not an allowed field' },
        { field: 'status', reason: 'must be one of succeeded, failed' },
        { field: 'error', reason: 'must be a string' },
        { field: 'retryable', reason: 'must be a boolean' },
      ],
    });
    expect(parseCompletion(null)).toEqual({
      ok: false,
      problems: [{ field: 'body', reason: 'must be a JSON object' }],
    });
  });

  it('bounds the output serialized and the error in UTF-8 bytes', () => {
    expect(parseCompletion({ status: 'succeeded', output: jsonOfBytes(MAX_OUTPUT_BYTES) }).ok).toBe(true);
    const output = parseCompletion({ status: 'succeeded', output: jsonOfBytes(MAX_OUTPUT_BYTES + 1) });
    expect(output.ok || output.problems.map((p) => p.field)).toEqual(['output']);
    expect(parseCompletion({ status: 'failed', error: 'e'.repeat(MAX_COMPLETION_ERROR_BYTES) }).ok).toBe(true);
    expect(parseCompletion({ status: 'failed', error: '€'.repeat(1366) })).toEqual({
      ok: false,
      problems: [{ field: 'error', reason: 'must be at most 4096 bytes (UTF-8)' }],
    });
  });

  it('never throws, whatever the body', () => {
    fc.assert(
      fc.property(fc.anything(), (body) => {
        const parsed = parseCompletion(body);
        expect(typeof parsed.ok).toBe('boolean');
        expect(typeof parseHeartbeat(body).ok).toBe('boolean');
      }),
    );
  });
});

describe('schemas/callback-heartbeat.json and callback-complete.json', () => {
  const heartbeat = compile(heartbeatSchema);
  const complete = compile(completeSchema);

  it('accept their examples, which the core accepts too', () => {
    for (const example of heartbeatSchema.examples) {
      expect(heartbeat(example)).toBe(true);
      expect(parseHeartbeat(example).ok).toBe(true);
    }
    for (const example of completeSchema.examples) {
      expect(complete(example)).toBe(true);
      expect(parseCompletion(example).ok).toBe(true);
    }
  });

  it('hold the core’s bounds where a schema can state them', () => {
    const hb = heartbeatSchema.properties;
    expect([hb.progress.minimum, hb.progress.maximum]).toEqual([0, 100]);
    expect(hb.message.maxLength).toBe(MAX_PROGRESS_MESSAGE_BYTES);
    expect(completeSchema.properties.error.maxLength).toBe(MAX_COMPLETION_ERROR_BYTES);
    expect(completeSchema.properties.status.enum).toEqual(['succeeded', 'failed']);
    expect(Object.keys(hb).sort()).toEqual(['checkpoint', 'message', 'progress']);
    expect(Object.keys(completeSchema.properties).sort()).toEqual(['error', 'output', 'retryable', 'status']);
  });

  it('refuse unknown fields, a missing status and values out of bounds', () => {
    expect(heartbeat({ colour: 'red' })).toBe(false);
    expect(heartbeat({ progress: 100.5 })).toBe(false);
    expect(complete({})).toBe(false);
    expect(complete({ status: 'done' })).toBe(false);
    expect(complete({ status: 'failed', retryable: 'no' })).toBe(false);
    expect(complete({ status: 'failed', output: [1, { any: 'json' }] })).toBe(true);
  });
});
