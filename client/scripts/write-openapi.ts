/**
 * `npm run openapi`: writes the OpenAPI document (functions/handlers/api/openapi/) to
 * client/openapi.json, the file the client's types are generated from (`npm run client:types`).
 * test/unit/openapi/openapi-document.test.ts fails when the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../../functions/handlers/api/openapi/document.ts';
import { biomeFormatted, ROOT } from './biome-format.ts';

export const OPENAPI_FILE = join(ROOT, 'client', 'openapi.json');

/** The file's text for the current document. */
export function openApiFileText(): string {
  return biomeFormatted(JSON.stringify(openApiDocument()), 'client/openapi.json');
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(OPENAPI_FILE, openApiFileText());
  console.log(`wrote ${OPENAPI_FILE}`);
}
