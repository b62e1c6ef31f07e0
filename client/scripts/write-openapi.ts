/**
 * `npm run openapi`: writes the OpenAPI document (functions/handlers/api/openapi/) to
 * client/openapi.json, the file the client's types are generated from (`npm run client:types`).
 * test/unit/openapi/openapi-document.test.ts fails when the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../../functions/handlers/api/openapi/document.ts';

export const OPENAPI_FILE = join(import.meta.dirname, '..', 'openapi.json');

/** The file's text: formatted as biome formats JSON, so `biome check` leaves it alone. */
export function openApiFileText(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(OPENAPI_FILE, openApiFileText());
  console.log(`wrote ${OPENAPI_FILE}`);
}
