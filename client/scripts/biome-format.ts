/** Generated files are written as biome formats them, so `biome check` leaves them alone. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

/** `text` formatted by biome as the file at `path` (relative to the repository) would be. */
export function biomeFormatted(text: string, path: string): string {
  return execFileSync(join(ROOT, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=${path}`], {
    cwd: ROOT,
    input: text,
    encoding: 'utf8',
  });
}
