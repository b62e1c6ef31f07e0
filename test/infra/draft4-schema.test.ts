import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '#handlers/api/routes';
import { SchemaConversionError, toDraft4Model } from '../../lib/api/draft4-schema.ts';

const DRAFT4 = 'http://json-schema.org/draft-04/schema#';

describe('toDraft4Model', () => {
  it('drops $schema, $id and keywords draft-04 does not know, and declares draft-04', () => {
    const model = toDraft4Model({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'https://chronos.example/create-job.json',
      $comment: 'internal',
      examples: [{}],
      type: 'object',
      properties: { name: { type: 'string', maxLength: 5, examples: ['x'] } },
    });

    expect(model).toEqual({ schema: DRAFT4, type: 'object', properties: { name: { type: 'string', maxLength: 5 } } });
  });

  it('keeps the draft-04 validation keywords the Chronos schemas use', () => {
    const schema = {
      type: 'object',
      required: ['a'],
      additionalProperties: false,
      properties: {
        a: { type: 'string', enum: ['x', 'y'], minLength: 1, pattern: '^[xy]$' },
        b: { type: 'integer', minimum: 1, maximum: 300 },
        c: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      },
    };

    expect(toDraft4Model(schema)).toEqual({ schema: DRAFT4, ...schema });
  });

  it('rewrites const and numeric exclusive bounds into their draft-04 forms', () => {
    const model = toDraft4Model({
      properties: { t: { const: 'once' }, n: { exclusiveMinimum: 0, exclusiveMaximum: 10 } },
    });

    expect(model.properties).toEqual({
      t: { enum: ['once'] },
      n: { minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
    });
  });

  it('inlines local $refs from $defs and definitions', () => {
    const model = toDraft4Model({
      $defs: { name: { type: 'string', maxLength: 3 } },
      definitions: { n: { type: 'integer' } },
      properties: { a: { $ref: '#/$defs/name' }, b: { type: 'array', items: { $ref: '#/definitions/n' } } },
    });

    expect(model.properties).toEqual({
      a: { type: 'string', maxLength: 3 },
      b: { type: 'array', items: { type: 'integer' } },
    });
  });

  it('refuses recursive and remote $refs', () => {
    expect(() =>
      toDraft4Model({ $defs: { n: { properties: { child: { $ref: '#/$defs/n' } } } }, $ref: '#/$defs/n' }),
    ).toThrow(SchemaConversionError);
    expect(() => toDraft4Model({ $ref: 'https://example.com/schema.json' })).toThrow(/Only local \$refs/);
  });

  it("inlines a ref into a sibling schema file, resolving that file's own local refs against it", () => {
    const siblings: Record<string, unknown> = {
      'base.json': {
        $defs: { zone: { type: 'string', maxLength: 64 } },
        properties: { schedule: { type: 'object', properties: { timezone: { $ref: '#/$defs/zone' } } } },
      },
    };
    const model = toDraft4Model(
      { properties: { schedule: { $ref: 'base.json#/properties/schedule' } } },
      (file) => siblings[file],
    );

    expect(model.properties).toEqual({
      schedule: { type: 'object', properties: { timezone: { type: 'string', maxLength: 64 } } },
    });
    expect(() => toDraft4Model({ $ref: 'base.json#/properties/schedule' })).toThrow(/No loader/);
    expect(() =>
      toDraft4Model({ $ref: 'loop.json' }, () => ({ properties: { again: { $ref: 'loop.json' } } })),
    ).toThrow(/Recursive/);
  });

  it('converts every schema a route names without losing its top-level constraints', () => {
    const schemaFiles = ROUTES.flatMap((route) => (route.bodySchema ? [route.bodySchema] : []));
    expect(schemaFiles.length).toBeGreaterThan(0);

    const read = (file: string) => JSON.parse(readFileSync(new URL(`../../schemas/${file}`, import.meta.url), 'utf8'));
    for (const file of schemaFiles) {
      const document = read(file);
      const model = toDraft4Model(document, read);
      expect(model.schema).toBe(DRAFT4);
      expect(model.type).toBe(document.type);
      expect(model.required).toEqual(document.required);
      expect(model.additionalProperties).toEqual(document.additionalProperties);
      expect(Object.keys(model.properties ?? {})).toEqual(Object.keys(document.properties));
      expect(JSON.stringify(model), `${file}: every $ref inlined`).not.toContain('$ref');
    }
  });
});
