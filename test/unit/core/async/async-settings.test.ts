/**
 * The job field `async`: defaults, bounds named as `async.<field>`, unknown keys refused, and the
 * schema (schemas/async-settings.json) holding the same bounds as the core.
 */
import { transpileSchema } from '@middy/validator/transpile';
import { describe, expect, it } from 'vitest';
import {
  ASYNC_SETTING_BOUNDS,
  type AsyncSettings,
  DEFAULT_ASYNC_SETTINGS,
  parseAsyncSettings,
} from '#core/async/async-settings';
import type { FieldProblem } from '#core/errors';
import schema from '#schemas/async-settings.json' with { type: 'json' };

const validate = transpileSchema(schema, { coerceTypes: false, useDefaults: false }) as unknown as (
  body: unknown,
) => boolean;

function parse(input: unknown) {
  const problems: FieldProblem[] = [];
  const settings = parseAsyncSettings(input, problems);
  return { settings, problems };
}

describe('parseAsyncSettings', () => {
  it('fills every default for an empty object', () => {
    expect(parse({})).toEqual({ settings: DEFAULT_ASYNC_SETTINGS, problems: [] });
    expect(DEFAULT_ASYNC_SETTINGS).toEqual({
      heartbeatTimeoutSeconds: 60,
      maxDurationSeconds: 3600,
      cancelGraceSeconds: 30,
    });
  });

  it('keeps the values given and defaults the rest', () => {
    expect(parse({ heartbeatTimeoutSeconds: 5, cancelGraceSeconds: 0 }).settings).toEqual({
      heartbeatTimeoutSeconds: 5,
      maxDurationSeconds: 3600,
      cancelGraceSeconds: 0,
    });
    expect(parse({ maxDurationSeconds: 604_800, heartbeatTimeoutSeconds: 3600 }).settings?.maxDurationSeconds).toBe(
      604_800,
    );
  });

  it.each([
    ['heartbeatTimeoutSeconds', 4],
    ['heartbeatTimeoutSeconds', 3601],
    ['heartbeatTimeoutSeconds', 30.5],
    ['maxDurationSeconds', 604_801],
    ['maxDurationSeconds', 4],
    ['cancelGraceSeconds', -1],
    ['cancelGraceSeconds', 3601],
    ['cancelGraceSeconds', '30'],
    ['cancelGraceSeconds', null],
    ['heartbeatTimeoutSeconds', Number.NaN],
  ])('refuses %s = %s, naming async.%s', (field, value) => {
    const { settings, problems } = parse({ [field]: value });
    expect(settings).toBeUndefined();
    const { min, max } = ASYNC_SETTING_BOUNDS[field as keyof AsyncSettings];
    expect(problems).toEqual([{ field: `async.${field}`, reason: `must be an integer from ${min} to ${max}` }]);
  });

  it('refuses unknown keys, naming each', () => {
    const { settings, problems } = parse({ heartbeatSeconds: 10, timeout: 1 });
    expect(settings).toBeUndefined();
    expect(problems).toEqual([
      { field: 'async.heartbeatSeconds', reason: 'is not an allowed field' },
      { field: 'async.timeout', reason: 'is not an allowed field' },
    ]);
  });

  it('refuses a max duration shorter than the heartbeat timeout, the default one included', () => {
    expect(parse({ heartbeatTimeoutSeconds: 600, maxDurationSeconds: 300 }).problems).toEqual([
      { field: 'async.maxDurationSeconds', reason: 'must be at least async.heartbeatTimeoutSeconds (600)' },
    ]);
    expect(parse({ maxDurationSeconds: 30 }).problems).toEqual([
      { field: 'async.maxDurationSeconds', reason: 'must be at least async.heartbeatTimeoutSeconds (60)' },
    ]);
    expect(parse({ heartbeatTimeoutSeconds: 300, maxDurationSeconds: 300 }).problems).toEqual([]);
  });

  it.each([null, [], 'fast', 60, true])('refuses %j as a whole, naming async', (input) => {
    expect(parse(input)).toEqual({ settings: undefined, problems: [{ field: 'async', reason: 'must be an object' }] });
  });

  it('names the field under another path when asked (a workflow task, say)', () => {
    const problems: FieldProblem[] = [];
    parseAsyncSettings({ cancelGraceSeconds: -1 }, problems, 'tasks.0.async');
    expect(problems[0]?.field).toBe('tasks.0.async.cancelGraceSeconds');
  });
});

describe('schemas/async-settings.json', () => {
  it('holds the same bounds as the core', () => {
    for (const [field, { min, max }] of Object.entries(ASYNC_SETTING_BOUNDS)) {
      const property = schema.properties[field as keyof typeof schema.properties];
      expect({ field, type: property.type, min: property.minimum, max: property.maximum }).toEqual({
        field,
        type: 'integer',
        min,
        max,
      });
    }
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(ASYNC_SETTING_BOUNDS).sort());
  });

  it('accepts its example and what the core accepts, refuses unknown keys and values out of bounds', () => {
    for (const example of schema.examples) {
      expect(validate(example)).toBe(true);
      expect(parse(example).problems).toEqual([]);
    }
    expect(validate({})).toBe(true);
    expect(validate({ colour: 'red' })).toBe(false);
    expect(validate({ heartbeatTimeoutSeconds: 4 })).toBe(false);
    expect(validate({ maxDurationSeconds: 604_801 })).toBe(false);
    expect(validate({ cancelGraceSeconds: 1.5 })).toBe(false);
  });
});
