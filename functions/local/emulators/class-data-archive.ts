/**
 * Class-data sharing for DynamoDB Local. Every start of its JVM loads and verifies the same few
 * thousand classes from DynamoDB Local's jars: about 2.7 s of CPU before it answers, for each of
 * the hundred instances a test run starts. A dynamic AppCDS archive of those classes, made once,
 * takes a start to about 1.6 s (measured on this repository's two-core machine, JDK 17).
 *
 * CDS refuses a classpath that holds a non-empty folder, and DynamoDB Local's has two: its jar's
 * manifest adds the jar's own folder (`Class-Path: .`, where nothing a start reads lives), and the
 * loopback launcher is a compiled class in a folder. So the archive's classpath is the launcher in
 * a jar of its own, a copy of DynamoDBLocal.jar without its manifest (the launcher names the main
 * class), and DynamoDB Local's libraries by name. All three and the archive are made once with the
 * JDK's `jar` and a training start of DynamoDB Local, into node_modules/.cache/chronos/ under a hash
 * of the Java version, the jars and the launcher, and moved into place whole: a worker that finds
 * the folder finds it complete. Anything missing (a JRE without `jar`, a JVM that cannot dump an
 * archive) leaves DynamoDB Local starting as before, without the archive.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { javaVersion } from './java.ts';

const CACHE_DIR = resolve(fileURLToPath(new URL('../../../node_modules/.cache/chronos', import.meta.url)));
const ARCHIVE = 'dynamodb-local.jsa';
const LAUNCHER_JAR = 'launcher.jar';
const DYNAMODB_JAR = 'DynamoDBLocal-without-manifest.jar';
/** A training start takes seconds: a folder this old without its archive was left by a process that died. */
const ABANDONED_AFTER_MS = 120_000;

/** How to start the JVM with the archive: its classpath and the option that names the archive. */
export interface ArchivedLaunch {
  classpath: string;
  jvmOptions: string[];
}

/**
 * A training start: runs DynamoDB Local with `classpath` and `jvmOptions` (which ask for the archive
 * at exit), makes the requests a test makes, and resolves once the JVM has exited normally.
 */
export type TrainingStart = (classpath: string, jvmOptions: string[]) => Promise<void>;

export interface ArchiveInputs {
  /** The folder of DynamoDBLocal.jar and DynamoDBLocal_lib/. */
  emulatorDir: string;
  /** The folder of the compiled loopback launcher class. */
  launcherDir: string;
  /** JVM options the archive is made and used with (CDS needs the same collector). */
  jvmOptions: string[];
  /** Where the archive's folder goes (default node_modules/.cache/chronos). */
  cacheDir?: string;
}

/** This process's answer once it has one: the archived launch, or `null` when making it failed. */
let known: ArchivedLaunch | null | undefined;
let asking: Promise<ArchivedLaunch | undefined> | undefined;

/**
 * The archived launch, made on first use (once per machine, on disk), or undefined. An archive
 * another process is still making is undefined for now and looked for again at the next start.
 */
export function classDataArchive(inputs: ArchiveInputs, train: TrainingStart): Promise<ArchivedLaunch | undefined> {
  if (known !== undefined) return Promise.resolve(known ?? undefined);
  asking ??= makeClassDataArchive(inputs, train)
    .then(
      (launch) => {
        if (launch !== undefined) known = launch;
        return launch;
      },
      () => {
        known = null;
        return undefined;
      },
    )
    .finally(() => {
      asking = undefined;
    });
  return asking;
}

/** The archived launch, made now unless the cache holds it; rejects when the training start fails. */
export async function makeClassDataArchive(
  inputs: ArchiveInputs,
  train: TrainingStart,
): Promise<ArchivedLaunch | undefined> {
  const libraries = readdirSync(join(inputs.emulatorDir, 'DynamoDBLocal_lib'))
    .filter((name) => name.endsWith('.jar'))
    .sort()
    .map((name) => join(inputs.emulatorDir, 'DynamoDBLocal_lib', name));
  const cacheDir = inputs.cacheDir ?? CACHE_DIR;
  const dir = join(cacheDir, `dynamodb-local-cds-${cacheKey(inputs, libraries)}`);
  const launchFrom = (folder: string): ArchivedLaunch => ({
    classpath: [join(folder, LAUNCHER_JAR), join(folder, DYNAMODB_JAR), ...libraries].join(delimiter),
    jvmOptions: [`-XX:SharedArchiveFile=${join(folder, ARCHIVE)}`],
  });
  if (existsSync(join(dir, ARCHIVE))) return launchFrom(dir);
  // A folder without its archive is another process's training, or what one that died left.
  if (existsSync(dir)) {
    if (Date.now() - statSync(dir).mtimeMs < ABANDONED_AFTER_MS) return undefined;
    rmSync(dir, { recursive: true, force: true });
  }

  mkdirSync(cacheDir, { recursive: true });
  const scratch = mkdtempSync(join(cacheDir, 'cds-'));
  try {
    jarWithoutManifest(join(inputs.emulatorDir, 'DynamoDBLocal.jar'), scratch);
    execFileSync('jar', ['--create', '--file', join(scratch, LAUNCHER_JAR), '-C', inputs.launcherDir, '.'], {
      stdio: 'ignore',
    });
    // The archive names its jars by path, so it is made where it is used: the jars move into place
    // first (whole: the loser of a race drops its own), then the training run writes the archive
    // beside them, under another name until it is complete.
    try {
      renameSync(scratch, dir);
    } catch {
      return undefined;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const launch = launchFrom(dir);
  const partial = join(dir, `${ARCHIVE}.partial`);
  try {
    await train(launch.classpath, [...inputs.jvmOptions, `-XX:ArchiveClassesAtExit=${partial}`]);
    renameSync(partial, join(dir, ARCHIVE));
    return launch;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** DynamoDBLocal.jar's entries, its manifest (and with it `Class-Path: .`) left out, into `folder`. */
function jarWithoutManifest(jar: string, folder: string): void {
  const unpacked = join(folder, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('jar', ['--extract', '--file', resolve(jar)], { cwd: unpacked, stdio: 'ignore' });
  rmSync(join(unpacked, 'META-INF', 'MANIFEST.MF'), { force: true });
  execFileSync(
    'jar',
    ['--create', '--no-manifest', '--no-compress', '--file', join(folder, DYNAMODB_JAR), '-C', unpacked, '.'],
    {
      stdio: 'ignore',
    },
  );
  rmSync(unpacked, { recursive: true, force: true });
}

function cacheKey(inputs: ArchiveInputs, libraries: string[]): string {
  const hash = createHash('sha256')
    .update(javaVersion() ?? 'no java')
    .update(inputs.jvmOptions.join(' '));
  for (const file of [join(inputs.emulatorDir, 'DynamoDBLocal.jar'), ...libraries]) {
    hash.update(`${file}:${statSync(file).size}`);
  }
  for (const name of readdirSync(inputs.launcherDir).sort())
    hash.update(`${name}:${statSync(join(inputs.launcherDir, name)).size}`);
  return hash.digest('hex').slice(0, 16);
}
