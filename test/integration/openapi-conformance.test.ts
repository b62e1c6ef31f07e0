/**
 * Every local Chronos a test starts checks its API's answers against the OpenAPI document
 * (test/support/openapi-conformance-setup.ts, a vitest setup file): here a get-job handler that
 * leaves `jobId` out of its answer is caught through the real gateway, and a test that saw such
 * an answer would fail (failOnViolations after each test).
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '#handlers/api/openapi/document';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import jobSchema from '#schemas/job.json' with { type: 'json' };
import { checkAgainstDocument, takeViolations } from '../support/openapi-violations.ts';

const JOB_ID = '01JD2Q8Z4W6X7Y8Z9A0B1C2D3E';
let chronos: LocalChronos;

/** The documented job without its jobId, as a get-job handler that drifted from the document would answer. */
async function driftedGetJob(): Promise<APIGatewayProxyResult> {
  const { jobId: _, ...withoutId } = jobSchema.examples[0] as Record<string, unknown>;
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json', etag: '"1"' },
    body: JSON.stringify(withoutId),
  };
}

beforeAll(async () => {
  // The setup leaves test doubles unchecked: this test asks for the check on its double explicitly.
  chronos = await startLocalChronos({
    scannerIntervalMs: 0,
    handlers: { api: { 'get-job': driftedGetJob } },
    onApiResponse: checkAgainstDocument,
  });
});

afterAll(async () => {
  await chronos?.stop();
});

const get = (path: string, token?: string) =>
  fetch(`${chronos.apiUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe('the answers of a local Chronos in the tests', () => {
  it('are checked against the document: an answer off it is recorded, naming what is wrong', async () => {
    expect((await get(`/v1/jobs/${JOB_ID}`, chronos.token)).status).toBe(200);
    const violations = takeViolations();
    expect(violations).toEqual([expect.stringMatching(/GET \/v1\/jobs\/\w+ → 200: body .*required property 'jobId'/)]);
  });

  it('record nothing for answers on the document, errors included', async () => {
    expect((await get('/v1/jobs', chronos.token)).status).toBe(200);
    expect((await get('/v1/jobs')).status).toBe(401);
    expect((await get('/v1/jobs?limit=0', chronos.token)).status).toBe(400);
    expect((await get('/v1/openapi.json')).status).toBe(200);
    expect(takeViolations()).toEqual([]);
  });

  it('include the document itself, served without a token as the generator builds it', async () => {
    const served = await get('/v1/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/json');
    expect(await served.json()).toEqual(openApiDocument());
  });
});
