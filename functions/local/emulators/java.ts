import { execFileSync, spawnSync } from 'node:child_process';

let version: string | undefined;

/**
 * What `java -version` prints, asked once per process once a `java` answers on the PATH (every
 * DynamoDB Local start needs it twice: is there a Java, and which one made the class-data
 * archive); undefined while none does, asked again then.
 */
export function javaVersion(): string | undefined {
  if (version === undefined) {
    const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
    if (java.status === 0) version = `${java.stderr}${java.stdout}`;
  }
  return version;
}

/** True when a `java` executable answers on the PATH. */
export function hasJava(): boolean {
  return javaVersion() !== undefined;
}

/**
 * DynamoDB Local is a Java program. On a fresh Debian machine without Java, install the headless
 * JRE 17 with apt (as the README promises) instead of failing later with a cryptic spawn error.
 */
export function ensureJava(log: (line: string) => void = console.log): void {
  if (hasJava()) return;
  if (process.getuid?.() !== 0) {
    throw new Error('Java 17 is required for DynamoDB Local: run `sudo apt-get install -y openjdk-17-jre-headless`');
  }
  log('java not found: installing openjdk-17-jre-headless with apt-get (one time)...');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'openjdk-17-jre-headless'], {
    stdio: 'inherit',
    env,
  });
  if (!hasJava()) throw new Error('java is still missing after installing openjdk-17-jre-headless');
}
