/** The client's types (client/src/schema.ts) are generated from the current document (npm run client:types). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TYPES_FILE, typesFileText } from '../../../client/scripts/write-types.ts';

describe('client/src/schema.ts', () => {
  it('is what openapi-typescript makes of the current document', async () => {
    expect(readFileSync(TYPES_FILE, 'utf8')).toBe(await typesFileText());
  }, 30_000);
});
