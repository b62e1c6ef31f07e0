/**
 * Validation against the OpenAPI document with Ajv's JSON Schema 2020-12 (what OpenAPI 3.1 uses)
 * and its formats (date-time): middy's transpileSchema, the same Ajv the handlers validate bodies
 * with. Each schema is compiled beside the document's components, so its `#/components/...` refs
 * resolve as they do in the document.
 */
import { transpileSchema } from '@middy/validator/transpile';
import { type OpenApiDocument, openApiDocument } from '#handlers/api/openapi/document';

type Validate = ((value: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string; keyword: string }> | null;
};

export interface DocumentValidator {
  document: OpenApiDocument;
  /** Problems of `value` against `schema` (a schema of the document, refs relative to it); empty when it matches. */
  problems(schema: unknown, value: unknown): string[];
}

export function documentValidator(document: OpenApiDocument = openApiDocument()): DocumentValidator {
  const compiled = new Map<string, Validate>();
  return {
    document,
    problems(schema, value) {
      const key = JSON.stringify(schema);
      let validate = compiled.get(key);
      if (!validate) {
        // `components` beside the schema: refs into the document resolve within this root. Nothing
        // may be coerced or defaulted: the value is checked as it came.
        validate = transpileSchema(
          { ...(schema as object), components: document.components },
          { strict: false, coerceTypes: false, useDefaults: false, allErrors: true },
        ) as unknown as Validate;
        compiled.set(key, validate);
      }
      if (validate(value)) return [];
      return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`);
    },
  };
}
