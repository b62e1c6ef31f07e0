/**
 * DynamoDB Local's class-data archive (class-data-archive.ts): made once, valid for the classpath
 * it is used with (the JVM itself says so), used by every start, and never in the way — a
 * training start that fails leaves nothing behind, and a folder another process is still filling
 * is left alone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { makeClassDataArchive } from '#local/emulators/class-data-archive';
import { type JvmLaunch, jvmLaunch, startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';
import { eventually } from '../support/http-target.ts';

const cacheDirs: string[] = [];
afterAll(() => {
  for (const dir of cacheDirs) rmSync(dir, { recursive: true, force: true });
});

function freshCacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chronos-cds-'));
  cacheDirs.push(dir);
  return dir;
}

/** What the JVM says of the archive for this launch's classpath, without starting anything. */
function archiveVerdict(launch: JvmLaunch): string {
  const result = spawnSync(
    'java',
    [...launch.jvmOptions, '-Xshare:on', '-XX:+PrintSharedArchiveAndExit', '-cp', launch.classpath, launch.main],
    { encoding: 'utf8' },
  );
  return `${result.stdout}${result.stderr}`;
}

function localDynamoDbClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
}

const archiveOf = (launch: JvmLaunch) =>
  launch.jvmOptions.find((option) => option.startsWith('-XX:SharedArchiveFile='));

/** The launch once the archive is there: on a clean clone, Vitest's global setup is still making it. */
async function archivedLaunch(): Promise<JvmLaunch> {
  const launch = await eventually(jvmLaunch, (found) => archiveOf(found) !== undefined, 60_000);
  expect(archiveOf(launch), 'this machine has the JDK: the launch uses an archive').toBeDefined();
  return launch;
}

describe("DynamoDB Local's class-data archive", () => {
  it('is what a start uses, and the JVM finds it valid for that classpath', async () => {
    const launch = await archivedLaunch();
    expect(archiveVerdict(launch)).toMatch(/archive is valid/);
    // The same archive with another classpath is refused: the check above can fail.
    expect(archiveVerdict({ ...launch, classpath: launch.classpath.split(delimiter)[0] as string })).toMatch(
      /archive is invalid/,
    );

    const dynamodb = await startDynamoDbLocal();
    try {
      const client = localDynamoDbClient(dynamodb.endpoint);
      expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual([]);
      client.destroy();
    } finally {
      await dynamodb.stop();
    }
  });

  it('is made once by a training start, in a cache folder of its own, then found there', async () => {
    const inputs = fakeInputs();
    const trainings: string[][] = [];
    const made = await makeClassDataArchive(inputs, async (classpath, options) => {
      trainings.push([classpath, ...options]);
      writePartialArchive(options);
    });
    expect(made?.jvmOptions).toEqual([expect.stringMatching(/^-XX:SharedArchiveFile=.*dynamodb-local\.jsa$/)]);
    // The training ran with the classpath the archive is used with, and the caller's options.
    expect(trainings).toEqual([[made?.classpath, '-XX:+UseSerialGC', expect.stringMatching(/ArchiveClassesAtExit/)]]);
    // No folder on it: the launcher and DynamoDB Local (its manifest gone) are jars of their own.
    const [launcherJar, dynamoDbJar, ...libraries] = made?.classpath.split(delimiter) ?? [];
    expect(launcherJar).toMatch(/launcher\.jar$/);
    expect(libraries).toEqual([join(inputs.emulatorDir, 'DynamoDBLocal_lib', 'a.jar')]);
    const manifest = spawnSync('jar', ['--list', '--file', dynamoDbJar as string], { encoding: 'utf8' }).stdout;
    expect(manifest).toMatch(/data\.txt/);
    expect(manifest).not.toMatch(/MANIFEST\.MF/);

    expect(await makeClassDataArchive(inputs, neverTrained)).toEqual(made);
  });

  it('leaves nothing behind when the training start fails, so a later start makes it again', async () => {
    const inputs = fakeInputs();
    await expect(
      makeClassDataArchive(inputs, async () => {
        throw new Error('the JVM could not write an archive');
      }),
    ).rejects.toThrow(/could not write/);
    expect(readdirSync(inputs.cacheDir)).toEqual([]);
  });

  it('leaves a folder another process is still filling alone, and replaces one whose maker died', async () => {
    const inputs = fakeInputs();
    const made = await makeClassDataArchive(inputs, async (_, options) => writePartialArchive(options));
    // The same folder without its archive stands for one whose training is under way.
    const [folder] = readdirSync(inputs.cacheDir);
    const dir = join(inputs.cacheDir, folder as string);
    rmSync(join(dir, 'dynamodb-local.jsa'));
    expect(await makeClassDataArchive(inputs, neverTrained)).toBeUndefined();
    expect(existsSync(dir)).toBe(true);

    // Minutes old without its archive: its maker died, and it is made again.
    const old = new Date(Date.now() - 5 * 60_000);
    utimesSync(dir, old, old);
    let trained = false;
    const remade = await makeClassDataArchive(inputs, async (_, options) => {
      trained = true;
      writePartialArchive(options);
    });
    expect(trained).toBe(true);
    expect(remade).toEqual(made);
    expect(existsSync(join(dir, 'dynamodb-local.jsa'))).toBe(true);
  });
});

/** An emulator folder and a launcher of a few bytes each: the folder logic, without a JVM. */
function fakeInputs() {
  const root = freshCacheDir();
  const emulatorDir = join(root, 'emulator');
  const content = join(root, 'content');
  const launcherDir = join(root, 'launcher');
  for (const dir of [join(emulatorDir, 'DynamoDBLocal_lib'), content, launcherDir]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(content, 'data.txt'), 'x');
  writeFileSync(join(launcherDir, 'DynamoDbLocalOnLoopback.class'), 'x');
  // Made with a manifest, as DynamoDBLocal.jar is.
  for (const jar of [join(emulatorDir, 'DynamoDBLocal.jar'), join(emulatorDir, 'DynamoDBLocal_lib', 'a.jar')]) {
    spawnSync('jar', ['--create', '--file', jar, '-C', content, '.']);
  }
  return { emulatorDir, launcherDir, jvmOptions: ['-XX:+UseSerialGC'], cacheDir: join(root, 'cache') };
}

/** What a JVM asked for an archive at exit does: writes it where the option says. */
function writePartialArchive(options: string[]): void {
  const path = options.find((option) => option.startsWith('-XX:ArchiveClassesAtExit='))?.split('=')[1];
  writeFileSync(path as string, 'archive');
}

async function neverTrained(): Promise<void> {
  throw new Error('not expected to train');
}
