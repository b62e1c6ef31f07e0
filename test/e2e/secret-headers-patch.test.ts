/**
 * PATCH of `target.secretHeaders`: a new target replaces the old one whole, so the next call
 * carries the new secret and never the old one, and a target sent without secretHeaders has none
 * left. No answer echoes a secret value, and the job item stores none in the clear.
 */
import type { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { type HttpTarget, startHttpTarget } from '../support/http-target.ts';
import { localDocuments } from '../support/local-documents.ts';
import { type Answer, apiAs } from './support/tenant-api.ts';

const OLD_SECRET = 'Bearer old-secret-4b1d';
const NEW_SECRET = 'Bearer new-secret-9e7c';

let chronos: LocalChronos;
let target: HttpTarget;
let documents: DynamoDBDocument;

beforeAll(async () => {
  target = await startHttpTarget();
  chronos = await startLocalChronos({ port: 0, scannerIntervalMs: 0, scanHorizonSeconds: 10, log: () => undefined });
  documents = localDocuments(chronos.endpoints.dynamodb);
});
afterAll(async () => {
  documents?.destroy();
  await chronos?.stop();
  await target?.close();
});

function expectNoSecretIn(...answers: Answer[]) {
  for (const answer of answers) {
    expect(JSON.stringify(answer.body)).not.toContain('old-secret');
    expect(JSON.stringify(answer.body)).not.toContain('new-secret');
  }
}

describe('PATCH target.secretHeaders', () => {
  it('replaces a secret header: the next call carries the new value, never the old, and no answer shows either', async () => {
    const api = apiAs(chronos.apiUrl, chronos.token);
    const created = await api('POST', '/v1/jobs', {
      target: { url: target.url('/rotated'), secretHeaders: { Authorization: OLD_SECRET } },
      schedule: { type: 'interval', everySeconds: 3600, startAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.jobId;
    // Premise: the old secret is what the target got before the change.
    expect((await api('POST', `/v1/jobs/${jobId}/trigger`)).status).toBe(202);
    const [before] = await target.waitForCalls('/rotated', 1, 10_000);
    expect(before?.headers.authorization).toBe(OLD_SECRET);

    const patched = await api(
      'PATCH',
      `/v1/jobs/${jobId}`,
      {
        target: {
          url: target.url('/rotated'),
          secretHeaders: { Authorization: NEW_SECRET, 'X-Api-Key': 'new-secret-key' },
        },
      },
      { 'if-match': `"${created.body.version}"` },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.target.secretHeaders).toEqual({ Authorization: '***', 'X-Api-Key': '***' });
    expect((await api('POST', `/v1/jobs/${jobId}/trigger`)).status).toBe(202);
    const [, after] = await target.waitForCalls('/rotated', 2, 10_000);
    expect(after?.headers.authorization).toBe(NEW_SECRET);
    expect(after?.headers['x-api-key']).toBe('new-secret-key');

    const read = await api('GET', `/v1/jobs/${jobId}`);
    const listed = await api('GET', '/v1/jobs');
    expectNoSecretIn(created, patched, read, listed);
    const stored = await documents.get({ TableName: chronos.tables.jobs, Key: { tenantId: chronos.tenantId, jobId } });
    expect(JSON.stringify(stored.Item)).not.toContain('secret-');
    expect(stored.Item?.target.secretHeaders.names).toEqual(['Authorization', 'X-Api-Key']);
  });

  it('removes every secret header when the new target has none: the next call carries neither', async () => {
    const api = apiAs(chronos.apiUrl, chronos.token);
    const created = await api('POST', '/v1/jobs', {
      target: {
        url: target.url('/unsealed'),
        headers: { 'x-plain': 'kept' },
        secretHeaders: { Authorization: OLD_SECRET },
      },
      schedule: { type: 'interval', everySeconds: 3600, startAt: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.jobId;

    const patched = await api(
      'PATCH',
      `/v1/jobs/${jobId}`,
      { target: { url: target.url('/unsealed'), headers: { 'x-plain': 'kept' } } },
      { 'if-match': `"${created.body.version}"` },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.target.secretHeaders).toBeUndefined();
    expect((await api('POST', `/v1/jobs/${jobId}/trigger`)).status).toBe(202);
    const [call] = await target.waitForCalls('/unsealed', 1, 10_000);
    expect(call?.headers.authorization).toBeUndefined();
    expect(call?.headers['x-plain']).toBe('kept');

    const stored = await documents.get({ TableName: chronos.tables.jobs, Key: { tenantId: chronos.tenantId, jobId } });
    expect(stored.Item?.target.secretHeaders).toBeUndefined();
    expectNoSecretIn(created, patched, await api('GET', `/v1/jobs/${jobId}`));
  });
});
