/**
 * `npm run client:types`: regenerates client/src/schema.ts (the client's types) from the OpenAPI
 * document with openapi-typescript. test/unit/openapi/client-types.test.ts fails when the
 * committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { openApiDocument } from '../../functions/handlers/api/openapi/document.ts';
import { biomeFormatted, ROOT } from './biome-format.ts';

export const TYPES_FILE = join(ROOT, 'client', 'src', 'schema.ts');

/** The types file's text for the current document. */
export async function typesFileText(): Promise<string> {
  // openapi-typescript's OpenAPI3 type is stricter than a generated document's; it reads it as JSON.
  const ast = await openapiTS(openApiDocument() as unknown as Parameters<typeof openapiTS>[0] & object);
  return biomeFormatted(`${COMMENT_HEADER}${astToString(ast)}`, 'client/src/schema.ts');
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(TYPES_FILE, await typesFileText());
  console.log(`wrote ${TYPES_FILE}`);
}
