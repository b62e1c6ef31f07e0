/**
 * The check the e2e tests run on every answer of the local API (openapi-conformance-setup.ts):
 * an answer off the document is named, one on it is not, and a test that saw one fails.
 */
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '#handlers/api/openapi/document';
import { ROUTES } from '#handlers/api/routes';
import { type ApiExchange, ResponseConformance } from '../../support/openapi-conformance.ts';
import {
  checkAgainstDocument,
  checkRealHandlers,
  failOnViolations,
  takeViolations,
} from '../../support/openapi-violations.ts';

const conformance = new ResponseConformance(ROUTES);
const schemas = (openApiDocument().components as { schemas: Record<string, { examples: unknown[] }> }).schemas;
const job = schemas.Job?.examples[0] as Record<string, unknown>;
const JOB_PATH = `/v1/jobs/${job.jobId}`;
const json = { 'content-type': 'application/json' };
const error = (code: string) => JSON.stringify({ error: { code, message: 'm', details: [] } });

const getJob = (over: Partial<ApiExchange> = {}): ApiExchange => ({
  method: 'GET',
  path: JOB_PATH,
  status: 200,
  headers: { ...json, etag: '"3"' },
  body: JSON.stringify(job),
  ...over,
});

describe('an answer checked against the document', () => {
  it('passes when its status, headers and body are the documented ones', () => {
    expect(conformance.violations(getJob())).toEqual([]);
    expect(conformance.violations(getJob({ status: 404, headers: json, body: error('NOT_FOUND') }))).toEqual([]);
    // A 5xx falls under `default`: still the error shape.
    expect(conformance.violations(getJob({ status: 502, headers: json, body: error('INTERNAL') }))).toEqual([]);
  });

  it('names a body that does not match the schema', () => {
    const { jobId: _, ...withoutId } = job;
    expect(conformance.violations(getJob({ body: JSON.stringify(withoutId) }))).toEqual([
      expect.stringContaining("must have required property 'jobId'"),
    ]);
    expect(conformance.violations(getJob({ body: JSON.stringify({ ...job, surprise: 1 }) }))).toEqual([
      expect.stringContaining('must NOT have additional properties'),
    ]);
    expect(conformance.violations(getJob({ body: 'not json' }))).toEqual([expect.stringContaining('not JSON')]);
  });

  it('names a status the operation does not list, and a required header that is missing', () => {
    expect(conformance.violations(getJob({ status: 201 }))).toEqual([
      expect.stringContaining('status not in the document'),
    ]);
    expect(conformance.violations(getJob({ status: 422, body: error('X') }))).toEqual([
      expect.stringContaining('status not in the document'),
    ]);
    expect(conformance.violations(getJob({ headers: json }))).toEqual([
      expect.stringContaining('required header ETag missing'),
    ]);
  });

  it('leaves alone a path no route matches (the gateway’s own 404)', () => {
    expect(conformance.violations({ ...getJob(), path: '/v1/nowhere', status: 404, body: 'x' })).toEqual([]);
  });

  it('fails the test that saw an answer off the document, naming it', () => {
    checkAgainstDocument(getJob({ headers: json }));
    expect(() => failOnViolations()).toThrow(/required header ETag missing/);
    // Taken: the next look finds nothing.
    expect(takeViolations()).toEqual([]);
    expect(() => failOnViolations()).not.toThrow();
  });

  it('checks the answers of real handlers only, when a local Chronos runs test doubles', () => {
    const check = checkRealHandlers(['get-job']);
    check(getJob({ headers: json }));
    expect(takeViolations()).toEqual([]);
    check({ method: 'GET', path: '/v1/jobs', status: 200, headers: json, body: '{"cursor":null}' });
    expect(takeViolations()).toEqual([expect.stringContaining("required property 'items'")]);
  });
});
