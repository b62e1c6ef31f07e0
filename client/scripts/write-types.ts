/**
 * `npm run client:types`: regenerates client/src/schema.ts (the client's types) from the OpenAPI
 * document with openapi-typescript, formatted as biome formats the repository. Run after
 * `npm run openapi`; test/unit/openapi/client-types.test.ts fails when the committed file is stale.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { openApiDocument } from '../../functions/handlers/api/openapi/document.ts';

const ROOT = join(import.meta.dirname, '..', '..');
export const TYPES_FILE = join(ROOT, 'client', 'src', 'schema.ts');

/** The types file's text for the current document. */
export async function typesFileText(): Promise<string> {
  // biome-ignore lint/suspicious/noExplicitAny: openapi-typescript's OpenAPI3 type is stricter than a generated document
  const ast = await openapiTS(openApiDocument() as any);
  const text = `${COMMENT_HEADER}${astToString(ast)}`;
  return execFileSync(
    join(ROOT, 'node_modules', '.bin', 'biome'),
    ['format', '--stdin-file-path=client/src/schema.ts'],
    {
      cwd: ROOT,
      input: text,
      encoding: 'utf8',
    },
  );
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(TYPES_FILE, await typesFileText());
  console.log(`wrote ${TYPES_FILE}`);
}
