/**
 * schemas/ as OpenAPI components: each file becomes `#/components/schemas/<its title>`, and its
 * references are rewritten to match — `other.json` to the other file's component, `#/$defs/x`
 * (relative to the file) to the same place under its component.
 */
import { type JsonSchema, SCHEMA_FILES } from './schema-files.ts';

/** The component name of a schema file: its `title`. */
export function componentName(file: string): string {
  const title = SCHEMA_FILES[file]?.title;
  if (typeof title !== 'string') throw new Error(`schemas/${file}: no such schema, or it has no title`);
  return title;
}

export function schemaRef(file: string): { $ref: string } {
  return { $ref: `#/components/schemas/${componentName(file)}` };
}

/** Every schema file as a component, references rewritten. */
export function schemaComponents(): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(SCHEMA_FILES).map(([file, schema]) => [
      componentName(file),
      rewriteRefs(schema, `#/components/schemas/${componentName(file)}`) as JsonSchema,
    ]),
  );
}

function rewriteRefs(value: unknown, self: string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, self));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' ? rewriteRef(inner, self) : rewriteRefs(inner, self),
    ]),
  );
}

function rewriteRef(ref: string, self: string): string {
  if (ref.startsWith('#')) return `${self}${ref.slice(1)}`;
  const [file = '', pointer = ''] = ref.split('#');
  return `#/components/schemas/${componentName(file)}${pointer}`;
}
