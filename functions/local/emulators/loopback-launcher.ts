/**
 * How the JVM starts DynamoDbLocalOnLoopback.java. Run as a source file, the JVM compiles it on
 * every start — about 3 s of CPU, for each of the hundred DynamoDB Local instances a test run
 * starts. So it is compiled once with `javac`, into node_modules/.cache/chronos/ under a hash of
 * its source and the jar it is compiled against, and the class is what the JVM starts; without
 * `javac` (a machine with only a JRE) the source file is run as before.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('./DynamoDbLocalOnLoopback.java', import.meta.url));
const CLASS_NAME = 'DynamoDbLocalOnLoopback';
const CACHE_DIR = resolve(fileURLToPath(new URL('../../../node_modules/.cache/chronos', import.meta.url)));

export interface LoopbackLauncher {
  /** Prepended to DynamoDB Local's classpath: the folder of the compiled class, if there is one. */
  classpath: string[];
  /** What follows the JVM options: the class name, or the source file. */
  main: string;
}

let chosen: LoopbackLauncher | undefined;

/** The compiled launcher when `javac` can make it, else its source file. Decided once per process. */
export function loopbackLauncher(dynamoDbLocalClasspath: string): LoopbackLauncher {
  chosen ??= compiled(dynamoDbLocalClasspath) ?? { classpath: [], main: SOURCE };
  return chosen;
}

function compiled(classpath: string): LoopbackLauncher | undefined {
  const jar = classpath.split(/[:;]/)[0] as string;
  const key = createHash('sha256')
    .update(readFileSync(SOURCE))
    .update(String(existsSync(jar) ? statSync(jar).size : 0))
    .digest('hex')
    .slice(0, 16);
  const dir = join(CACHE_DIR, `dynamodb-local-launcher-${key}`);
  if (existsSync(join(dir, `${CLASS_NAME}.class`))) return { classpath: [dir], main: CLASS_NAME };
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    // Compiled aside and renamed into place: two test workers compiling at once never see half a class.
    const scratch = mkdtempSync(join(CACHE_DIR, 'launcher-'));
    execFileSync('javac', ['-cp', classpath, '-d', scratch, SOURCE], { stdio: 'ignore' });
    try {
      renameSync(scratch, dir);
    } catch {
      rmSync(scratch, { recursive: true, force: true }); // another worker's is there already
    }
    return existsSync(join(dir, `${CLASS_NAME}.class`)) ? { classpath: [dir], main: CLASS_NAME } : undefined;
  } catch {
    return undefined;
  }
}
