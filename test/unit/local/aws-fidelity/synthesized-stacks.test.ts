import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashSources } from '#local/aws-fidelity/synthesized-stacks';

let root: string;
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chronos-synth-hash-'));
  write('node_modules/aws-cdk-lib/package.json', '{"version":"2.0.0"}');
  write('lib/app.ts', "import { X } from '#adapters/dynamodb/table-definitions';\n");
  write('functions/adapters/dynamodb/table-definitions.ts', "export const X = 'due-index';\n");
  write('functions/core/unrelated.ts', 'export const y = 1;\n');
  write('functions/handlers/api/routes.ts', 'export const ROUTES = [];\n');
  write('cdk.json', '{"context":{}}');
  write('schemas/create-job.json', '{}');
  write('functions/local/aws-fidelity/synthesized-stacks.ts', "add('executor');\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the synthesized-template cache key', () => {
  it('changes with lib/, cdk.json, schemas/, the route table, the modules lib/ imports, the role mapping and the CDK version', () => {
    const edits: Array<[string, string]> = [
      ['lib/app.ts', "import { X } from '#adapters/dynamodb/table-definitions';\n// changed\n"],
      ['cdk.json', '{"context":{"chronos:stage":"prod"}}'],
      ['schemas/create-job.json', '{"type":"object"}'],
      ['functions/handlers/api/routes.ts', 'export const ROUTES = [1];\n'],
      ['functions/adapters/dynamodb/table-definitions.ts', "export const X = 'due-index-2';\n"],
      ['lib/constructs/new.ts', 'export {};\n'],
      // Which function maps to which role is decided there: a function added must show.
      ['functions/local/aws-fidelity/synthesized-stacks.ts', "add('executor');\nadd('stream-failures');\n"],
      ['node_modules/aws-cdk-lib/package.json', '{"version":"2.0.1"}'],
    ];
    const seen = new Set([hashSources(root)]);
    for (const [path, text] of edits) {
      write(path, text);
      const hash = hashSources(root);
      expect(seen.has(hash), `editing ${path} changes the key`).toBe(false);
      seen.add(hash);
    }
  });

  it('stays the same for code the templates are not built from', () => {
    const before = hashSources(root);
    write('functions/core/unrelated.ts', 'export const y = 2;\n');
    expect(hashSources(root)).toBe(before);
  });
});
