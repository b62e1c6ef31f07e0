/**
 * One notion of what can be stored: the JSON Schemas declare exactly the numeric ranges of
 * bounds.ts, and the core refuses values past them even when a caller skipped the schema.
 */
import { describe, expect, it } from 'vitest';
import { JOB_NUMBER_BOUNDS, LATEST_INSTANT } from '#core/bounds';
import { ValidationError } from '#core/errors';
import { type CreateJobInput, parseCreateJob } from '#core/job-input';
import { parseUpdateJob } from '#core/update-input';
import createJobSchema from '#schemas/create-job.json' with { type: 'json' };
import updateJobSchema from '#schemas/update-job.json' with { type: 'json' };

const NOW = Date.parse('2026-06-01T12:00:00Z');

type SchemaNode = {
  type?: string;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
};

/** Every number or integer in a schema, by dotted path (array items under the array's path). */
function numericFields(node: SchemaNode, path = ''): Map<string, SchemaNode> {
  const found = new Map<string, SchemaNode>();
  if (node.type === 'number' || node.type === 'integer') found.set(path, node);
  if (node.items) for (const [p, n] of numericFields(node.items, path)) found.set(p, n);
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    for (const [p, n] of numericFields(child, path ? `${path}.${name}` : name)) found.set(p, n);
  }
  return found;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.details.map((detail) => detail.field);
    throw error;
  }
  return [];
}

const validCreate = (): CreateJobInput => ({
  target: { url: 'https://example.com/hook' },
  schedule: { type: 'interval', everySeconds: 60 },
});

describe('bounds of numeric request fields', () => {
  it.each([
    ['create-job.json', createJobSchema],
    ['update-job.json', updateJobSchema],
  ])('%s bounds every numeric field exactly as bounds.ts does', (_name, schema) => {
    // act
    const fields = numericFields(schema as SchemaNode);
    // assess: every numeric field is bounded on both sides, with the core's range
    expect(fields.size).toBeGreaterThan(0);
    for (const [field, node] of fields) {
      const bound = JOB_NUMBER_BOUNDS[field as keyof typeof JOB_NUMBER_BOUNDS];
      expect(bound, field).toBeDefined();
      expect([node.minimum, node.maximum], field).toEqual([bound.min, bound.max]);
      expect(node.type, field).toBe(bound.integer ? 'integer' : 'number');
    }
  });

  it('keeps the latest instant a 13-digit safe integer, as the runs sort key needs', () => {
    expect(Number.isSafeInteger(LATEST_INSTANT)).toBe(true);
    expect(String(LATEST_INSTANT)).toHaveLength(13);
    expect(new Date(LATEST_INSTANT).toISOString()).toBe('2199-12-31T23:59:59.999Z');
  });

  it('refuses out-of-range retry, timeout and SLA values on create even without the schema, naming each', () => {
    // act
    const fields = problemsOf(() =>
      parseCreateJob(
        {
          ...validCreate(),
          retry: { maxAttempts: 1e9, initialDelaySeconds: 0.5, maxDelaySeconds: 2 ** 60, multiplier: 1e308 },
          timeoutSeconds: 301,
          slaSeconds: -1,
        },
        NOW,
      ),
    );
    // assess
    expect(fields).toEqual(
      expect.arrayContaining([
        'retry.maxAttempts',
        'retry.initialDelaySeconds',
        'retry.maxDelaySeconds',
        'retry.multiplier',
        'timeoutSeconds',
        'slaSeconds',
      ]),
    );
  });

  it('refuses a non-integer or out-of-range retryOn status', () => {
    expect(problemsOf(() => parseCreateJob({ ...validCreate(), retry: { retryOn: [404.5] } }, NOW))).toEqual([
      'retry.retryOn',
    ]);
  });

  it('refuses out-of-range timeout and SLA values on PATCH, naming each', () => {
    // act
    const fields = problemsOf(() => parseUpdateJob({ timeoutSeconds: 1e12, slaSeconds: 3601 }, NOW));
    const schedule = problemsOf(() =>
      parseUpdateJob({ schedule: { type: 'interval', everySeconds: 9_000_000_000_000 } }, NOW),
    );
    // assess
    expect(fields.sort()).toEqual(['slaSeconds', 'timeoutSeconds']);
    expect(schedule).toEqual(['schedule.everySeconds']);
  });
});
