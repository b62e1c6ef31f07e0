/**
 * The signing-secret routes on in-memory adapters (wiring mocked): rotation answers the new secret
 * once, uncacheable, and logs only its id; the listing never holds a value.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import { InMemorySigningSecrets } from '../../support/fakes/in-memory-signing-secrets.ts';

const fakes = vi.hoisted(() => ({ store: undefined as unknown as InMemorySigningSecrets }));
vi.mock('#handlers/wiring', () => ({
  signingSecretRepository: () => fakes.store,
  secretCipher: () => new LocalSecretCipher(LocalSecretCipher.generateKey()),
}));

const { logger } = await import('#handlers/logger');
const rotate = (await import('#handlers/api/rotate-signing-secret')).handler;
const list = (await import('#handlers/api/list-signing-secrets')).handler;

const context = { functionName: 'test', awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as Context;
const eventOf = (body: string | null) =>
  ({ body, headers: {}, requestContext: { authorizer: { tenantId: 't' } } }) as unknown as APIGatewayProxyEvent;
const logged: unknown[] = [];

beforeEach(() => {
  fakes.store = new InMemorySigningSecrets();
  logged.length = 0;
  for (const level of ['info', 'warn', 'error', 'debug'] as const)
    vi.spyOn(logger, level).mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
});
afterEach(() => vi.restoreAllMocks());

describe('signing-secret routes', () => {
  it('answer a rotation once with the new secret, uncacheable, and log only its id', async () => {
    const answer = await rotate(eventOf('{"overlapHours":2}'), context);
    const body = JSON.parse(answer.body);

    expect(answer.statusCode).toBe(201);
    expect(answer.headers).toMatchObject({ 'cache-control': 'no-store' });
    expect(body.secret).toMatch(/^whsec_/);
    expect(JSON.stringify(logged)).toContain(body.secretId);
    expect(JSON.stringify(logged)).not.toContain(body.secret.slice(6));

    const listed = await list(eventOf(null), context);
    expect(listed.statusCode).toBe(200);
    expect(JSON.parse(listed.body).items).toEqual([
      { secretId: body.secretId, prefix: body.prefix, createdAt: body.createdAt },
    ]);
    expect(listed.body).not.toContain(body.secret.slice(10));
  });

  it('refuses an overlap out of range or an unknown field with 400, and issues nothing', async () => {
    for (const body of ['{"overlapHours":-1}', '{"overlapHours":"24"}', '{"overlap":24}', '[]']) {
      const answer = await rotate(eventOf(body), context);
      expect(answer.statusCode, body).toBe(400);
    }
    expect(fakes.store.items.size).toBe(0);
  });
});
