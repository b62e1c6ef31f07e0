/** Every file below a path (the path itself when it is a file), in name order; none when it is missing. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (statSync(path).isFile()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}
