import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('the core ring', () => {
  it('imports nothing from AWS, Lambda or CDK, nor from the outer rings', () => {
    const offenders = filesUnder('functions/core').filter((file) =>
      /from '(@aws-sdk\/|aws-lambda|aws-cdk-lib|@aws-lambda-powertools\/|#adapters\/|#handlers\/|#local\/)/.test(
        readFileSync(file, 'utf8'),
      ),
    );
    expect(offenders).toEqual([]);
  });
});
