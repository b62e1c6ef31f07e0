/**
 * The local gateway refuses what API Gateway's validator refuses, before any function runs, with
 * the answer API Gateway gives (lib/api/gateway-responses.ts): a body that is not JSON, or not a
 * JSON object. Every JSON object reaches the handler, which names the field — the API's contract,
 * which a stricter model would break on AWS (lib/api/body-model.ts).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiHandler } from '#local/api-gateway';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';

let chronos: LocalChronos;
/** Calls that reached the create-job function. */
let reached = 0;

beforeAll(async () => {
  const { handler: createJob } = (await import('#handlers/api/create-job')) as { handler: ApiHandler };
  const counting: ApiHandler = (event, context) => {
    reached++;
    return createJob(event, context);
  };
  chronos = await startLocalChronos({
    port: 0,
    components: { scanner: false, executor: false, completion: false, deadLetters: false, notifier: false },
    handlers: { api: { 'create-job': counting } },
    log: () => undefined,
  });
});
afterAll(async () => {
  await chronos?.stop();
});

async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${chronos.apiUrl}/v1/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${chronos.token}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; details: unknown[] } } };
}

describe('API Gateway request validation, locally', () => {
  it('refuses a body that is not JSON before the function runs, naming the body', async () => {
    const before = reached;
    const answer = await post('{"target": ');
    expect(answer).toEqual({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: 'The request is invalid',
          details: [{ field: 'body', reason: 'Invalid request body' }],
        },
      },
    });
    expect(reached).toBe(before);
  });

  it('refuses JSON that is not an object before the function runs', async () => {
    const before = reached;
    for (const body of ['[]', '"job"', '42', 'null', 'true']) {
      const answer = await post(body);
      expect(answer.status, body).toBe(400);
      expect(answer.body.error?.details, body).toEqual([{ field: 'body', reason: expect.any(String) }]);
    }
    expect(reached).toBe(before);
  });

  it('authorizes before it validates: no token and a broken body is a 401', async () => {
    const response = await fetch(`${chronos.apiUrl}/v1/jobs`, { method: 'POST', body: '{' });
    expect(response.status).toBe(401);
  });

  it('passes every JSON object to the handler, whose 400 names a field inside the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })), async (object) => {
        const before = reached;
        const answer = await post(JSON.stringify(object));
        expect(reached).toBe(before + 1);
        expect(answer.status).toBeLessThan(500);
        if (answer.status === 400) {
          const fields = ((answer.body.error?.details ?? []) as { field: string }[]).map((d) => d.field);
          expect(fields.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 40, seed: 1 },
    );
  });

  it('leaves a content type without a model to the function, as API Gateway passes it through', async () => {
    const before = reached;
    const answer = await post('{"target": ', { 'content-type': 'text/plain' });
    expect(reached).toBe(before + 1);
    expect(answer.status).toBe(400);
  });
});
