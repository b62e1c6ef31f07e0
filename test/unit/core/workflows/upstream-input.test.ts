import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES } from '#core/limits';
import { ownBodyValue, type UpstreamResult, upstreamBody } from '#core/workflows/upstream-input';

const parsed = (result: ReturnType<typeof upstreamBody>) => {
  if (!result.ok) throw new Error(result.reason);
  return JSON.parse(result.body) as { body: unknown; upstream: Record<string, Record<string, unknown>> };
};

describe('upstream input', () => {
  it("carries the task's own body and each dependency's status, HTTP status and excerpt or output", () => {
    const result = upstreamBody({ day: '2026-11-24' }, [
      { key: 'clean', result: { status: 'SUCCEEDED', httpStatus: 200, responseExcerpt: '{"rows":10}' } },
      { key: 'enrich', result: { status: 'SUCCEEDED', httpStatus: 202, output: { rows: 12 }, responseExcerpt: 'x' } },
    ]);
    expect(result).toEqual({
      ok: true,
      body: '{"body":{"day":"2026-11-24"},"upstream":{"clean":{"status":"SUCCEEDED","httpStatus":200,"responseExcerpt":"{\\"rows\\":10}"},"enrich":{"status":"SUCCEEDED","httpStatus":202,"output":{"rows":12}}}}',
      omitted: [],
    });
  });

  it('shows a skipped or failed dependency by its status alone when it left nothing', () => {
    const body = parsed(upstreamBody(null, [{ key: 'enrich', result: { status: 'SKIPPED' } }]));
    expect(body).toEqual({ body: null, upstream: { enrich: { status: 'SKIPPED' } } });
  });

  it('keeps a key such as __proto__ as an ordinary entry', () => {
    const body = parsed(upstreamBody(null, [{ key: '__proto__', result: { status: 'FAILED', httpStatus: 500 } }]));
    expect(Object.keys(body.upstream)).toEqual(['__proto__']);
  });

  it('leaves out the largest payloads first to stay within the bound, marking them', () => {
    const excerpt = (n: number): UpstreamResult => ({
      status: 'SUCCEEDED',
      httpStatus: 200,
      responseExcerpt: 'e'.repeat(n),
    });
    const upstream = [
      { key: 'small', result: excerpt(100) },
      { key: 'big', result: excerpt(3000) },
      { key: 'medium', result: excerpt(1000) },
    ];
    const result = upstreamBody('own', upstream, 2000);
    expect(result.ok && result.omitted).toEqual(['big']);
    const body = parsed(result);
    expect(body.upstream.big).toEqual({ status: 'SUCCEEDED', httpStatus: 200, omitted: true });
    expect(body.upstream.medium?.responseExcerpt).toHaveLength(1000);
    expect(Buffer.byteLength(result.ok ? result.body : '')).toBeLessThanOrEqual(2000);

    const tighter = upstreamBody('own', upstream, 1000);
    expect(tighter.ok && tighter.omitted).toEqual(['big', 'medium']);
    expect(Buffer.byteLength(tighter.ok ? tighter.body : '')).toBeLessThanOrEqual(1000);
  });

  it('fits a hundred dependencies with 4 KiB excerpts into the API body limit', () => {
    const upstream = Array.from({ length: 100 }, (_, i) => ({
      key: `task-${i}`,
      result: { status: 'SUCCEEDED' as const, httpStatus: 200, responseExcerpt: 'ü'.repeat(2048) },
    }));
    const result = upstreamBody({ note: 'x' }, upstream);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Buffer.byteLength(result.body)).toBeLessThanOrEqual(MAX_REQUEST_BODY_BYTES);
    expect(result.omitted.length).toBeGreaterThan(0);
    expect(result.omitted.length).toBeLessThan(100);
    expect(Object.keys(JSON.parse(result.body).upstream)).toHaveLength(100);
  });

  it('refuses when even the own body with bare statuses is over the bound', () => {
    expect(upstreamBody('x'.repeat(300), [{ key: 'a', result: { status: 'SUCCEEDED' } }], 100)).toEqual({
      ok: false,
      reason: "the task's own body and its dependencies' statuses exceed 100 bytes",
    });
  });

  it('leaves out an output JSON cannot carry, and refuses an own body JSON cannot carry', () => {
    const result = upstreamBody(null, [{ key: 'a', result: { status: 'SUCCEEDED', output: 10n } }]);
    expect(result.ok && result.omitted).toEqual(['a']);
    expect(parsed(result).upstream.a).toEqual({ status: 'SUCCEEDED', omitted: true });
    expect(upstreamBody(10n, []).ok).toBe(false);
  });

  it("reads the task's own body as JSON when it is sent as JSON, as text otherwise", () => {
    expect(ownBodyValue({ body: '{"a":1}', headers: { 'Content-Type': 'application/json' } })).toEqual({ a: 1 });
    expect(
      ownBodyValue({ body: '[1]', headers: { 'content-type': 'application/vnd.api+json; charset=utf-8' } }),
    ).toEqual([1]);
    expect(ownBodyValue({ body: '{"a":1}', headers: { 'content-type': 'text/plain' } })).toBe('{"a":1}');
    expect(ownBodyValue({ body: 'not json', headers: { 'content-type': 'application/json' } })).toBe('not json');
    expect(ownBodyValue({ headers: {} })).toBeNull();
  });
});
