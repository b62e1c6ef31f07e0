/**
 * API Gateway models are JSON Schema draft-04, while the schemas under schemas/ are written for
 * the handlers' validator (a later draft). This converts one into the other: local `$ref`s, and
 * refs into a sibling schema file (`create-job.json#/properties/schedule`, read with `loadSibling`),
 * are inlined (API Gateway refs must be model URLs), draft-06+ forms are rewritten to their draft-04
 * equivalents, and keywords draft-04 does not know are dropped (the handler still validates them).
 */
import * as apigateway from 'aws-cdk-lib/aws-apigateway';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords whose value is one subschema. */
const SUBSCHEMA_KEYWORDS = new Set(['items', 'additionalItems', 'not']);
/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LIST_KEYWORDS = new Set(['oneOf', 'anyOf', 'allOf']);
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties']);
/** Draft-04 keywords copied as they are. */
const PLAIN_KEYWORDS = new Set([
  'title',
  'description',
  'default',
  'type',
  'enum',
  'format',
  'required',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
]);

/** Raised when a schema cannot be expressed as an API Gateway model. */
export class SchemaConversionError extends Error {
  override readonly name = 'SchemaConversionError';
}

/** Reads a sibling schema file by its name (`create-job.json`); the document, parsed. */
export type SiblingLoader = (file: string) => unknown;

const noSiblings: SiblingLoader = (file) => {
  throw new SchemaConversionError(`No loader for the sibling schema "${file}"`);
};

/** A ref into another schema file of the same folder: `<name>.json#/pointer` (no scheme, no path). */
const SIBLING_REF = /^([\w-]+\.json)(#.*)?$/;

/** Converts a JSON Schema document into an API Gateway (draft-04) model schema. */
export function toDraft4Model(document: unknown, loadSibling: SiblingLoader = noSiblings): apigateway.JsonSchema {
  if (!isObject(document)) throw new SchemaConversionError('A JSON Schema document must be an object');
  const converted = convert(document, document, [], loadSibling);
  return { schema: apigateway.JsonSchemaVersion.DRAFT4, ...converted } as apigateway.JsonSchema;
}

function convert(schema: JsonObject, root: JsonObject, refStack: string[], load: SiblingLoader): JsonObject {
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const sibling = SIBLING_REF.exec(ref);
    if (sibling) {
      if (refStack.includes(ref)) throw new SchemaConversionError(`Recursive $ref "${ref}" cannot be inlined`);
      // The target's own local refs resolve against its file: it becomes the root.
      const [, file = '', pointer = '#'] = sibling;
      const siblingRoot = asObject(load(file), file);
      const target = pointer === '#' ? siblingRoot : resolveLocalRef(pointer, siblingRoot, refStack);
      return convert(target, siblingRoot, [...refStack, ref], load);
    }
    return convert(resolveLocalRef(ref, root, refStack), root, [...refStack, ref], load);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (PLAIN_KEYWORDS.has(key)) out[key] = value;
    else if (key === 'additionalProperties') {
      out[key] = isObject(value) ? convert(value, root, refStack, load) : value;
    } else if (SUBSCHEMA_KEYWORDS.has(key) && isObject(value)) out[key] = convert(value, root, refStack, load);
    else if (SUBSCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      out[key] = value.map((item) => convert(asObject(item, key), root, refStack, load));
    } else if (SUBSCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([n, s]) => [n, convert(asObject(s, n), root, refStack, load)]),
      );
    } else if (key === 'const') out.enum = [value];
    else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
      // Draft-06 made these numbers; draft-04 pairs a boolean with minimum/maximum.
      const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
      if (typeof value === 'number') {
        out[bound] = value;
        out[key] = true;
      } else out[key] = value;
    }
    // Anything else ($schema, $id, $defs, examples, if/then/else...) is unknown to draft-04: dropped.
  }
  return out;
}

function resolveLocalRef(ref: string, root: JsonObject, refStack: string[]): JsonObject {
  if (!ref.startsWith('#/')) throw new SchemaConversionError(`Only local $refs can be inlined, got "${ref}"`);
  if (refStack.includes(ref)) throw new SchemaConversionError(`Recursive $ref "${ref}" cannot be inlined`);
  let target: Json = root;
  for (const part of ref.slice(2).split('/')) {
    const name = part.replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(target) || !(name in target)) throw new SchemaConversionError(`Unresolvable $ref "${ref}"`);
    target = target[name] as Json;
  }
  return asObject(target, ref);
}

function asObject(value: unknown, where: string): JsonObject {
  if (!isObject(value)) throw new SchemaConversionError(`Expected a subschema object at "${where}"`);
  return value;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
