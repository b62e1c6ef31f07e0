/**
 * Starts AWS's own DynamoDB Local (the jar shipped in the npm package amplify-dynamodb-simulator)
 * in memory, or in a folder when given one, on a free port of 127.0.0.1 only
 * (DynamoDbLocalOnLoopback.java: DynamoDB Local alone would listen on every interface). One
 * instance per test suite: it slows down as stream records pile up.
 *
 * The JVM is tied to this process: it exits when its stdin (a pipe from here) closes, so it never
 * outlives a runtime that was killed; and it runs in its own process group, so a Ctrl-C in the
 * terminal reaches only the runtime, which stops it after its own pollers have stopped.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { classDataArchive } from './class-data-archive.ts';
import { exerciseDynamoDbLocal } from './exercise-dynamodb-local.ts';
import { freePort } from './free-port.ts';
import { ensureJava } from './java.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './local-clients.ts';
import { loopbackLauncher } from './loopback-launcher.ts';

export interface RunningEmulator {
  endpoint: string;
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 30_000;

function emulatorDirectory(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
}

/** Attempts on fresh ports when the one picked was taken before DynamoDB Local could bind it. */
const BIND_ATTEMPTS = 3;

/**
 * Starts DynamoDB Local and resolves once it answers ListTables. A free port can be taken by
 * another process in the second the JVM needs to start (parallel test files start their own):
 * then it starts again on another one, unless the caller asked for that port.
 */
export async function startDynamoDbLocal(options: { port?: number; dataDir?: string } = {}): Promise<RunningEmulator> {
  ensureJava();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(options.port ?? (await freePort()), options.dataDir);
    } catch (error) {
      if (options.port !== undefined || attempt >= BIND_ATTEMPTS || !(error instanceof PortTakenError)) throw error;
    }
  }
}

class PortTakenError extends Error {}

/** The JVM's command line up to DynamoDB Local's own options. */
export interface JvmLaunch {
  jvmOptions: string[];
  classpath: string;
  main: string;
}

/** With the class-data archive when one can be made (class-data-archive.ts), else as compiled or as source. */
export async function jvmLaunch(dir: string = emulatorDirectory()): Promise<JvmLaunch> {
  const classpath = [join(dir, 'DynamoDBLocal.jar'), join(dir, 'DynamoDBLocal_lib', '*')].join(delimiter);
  const launcher = loopbackLauncher(classpath);
  const jvmOptions = [
    // The client compiler alone, and the serial collector: on two cores C2's compiling competes
    // with the requests, and DynamoDB Local starts in less than half the CPU and serves more
    // requests a second over a test's or the bench's life (measured: 3 s instead of 9 s of CPU
    // to start; 1,070 instead of 850 PutItem/s after 9,000 puts).
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-Xmx1g',
  ];
  const plain = { jvmOptions, classpath: [...launcher.classpath, classpath].join(delimiter), main: launcher.main };
  const [launcherDir] = launcher.classpath;
  if (launcherDir === undefined) return plain;
  const archived = await classDataArchive({ emulatorDir: dir, launcherDir, jvmOptions }, (archiveClasspath, options) =>
    trainingStart(dir, { jvmOptions: options, classpath: archiveClasspath, main: launcher.main }),
  );
  if (archived === undefined) return plain;
  return { jvmOptions: [...jvmOptions, ...archived.jvmOptions], classpath: archived.classpath, main: launcher.main };
}

/** A started JVM, and the last 4,000 characters it wrote to stderr. */
interface Jvm {
  child: ChildProcess;
  stderr(): string;
}

function spawnJvm(dir: string, launch: JvmLaunch, port: number, dataDir: string | undefined): Jvm {
  const child = spawn(
    'java',
    [
      ...launch.jvmOptions,
      '-cp',
      launch.classpath,
      // Loopback only: DynamoDB Local answers anyone who can reach it, with any credentials.
      launch.main,
      // -sharedDb: one database file (shared-local-instance.db) whatever the credentials or region.
      // The JVM runs in the emulator's folder: a relative folder is resolved from ours first.
      ...(dataDir === undefined ? ['-inMemory'] : ['-dbPath', resolve(dataDir)]),
      '-sharedDb',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { cwd: dir, stdio: ['pipe', 'ignore', 'pipe'], detached: true },
  );
  // Never written to: its end, when this process ends, is what stops the JVM (see the launcher).
  child.stdin?.on('error', () => {});
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return { child, stderr: () => stderr };
}

/**
 * The start that writes the class-data archive: DynamoDB Local answers the requests a run of
 * Chronos makes (so their classes are archived too), then exits normally when its standard input
 * closes, which is when the JVM writes the archive.
 */
async function trainingStart(dir: string, launch: JvmLaunch): Promise<void> {
  const port = await freePort();
  const { child, stderr } = spawnJvm(dir, launch, port, undefined);
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  try {
    const endpoint = `http://127.0.0.1:${port}`;
    await waitUntilReady(endpoint, child, stderr);
    await exerciseDynamoDbLocal(endpoint);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  child.stdin?.end();
  const timeout = setTimeout(() => child.kill('SIGKILL'), STARTUP_TIMEOUT_MS);
  const code = await exited;
  clearTimeout(timeout);
  if (code !== 0) throw new Error(`DynamoDB Local's training start exited with ${code}: ${stderr()}`);
}

async function startOnPort(port: number, dataDir: string | undefined): Promise<RunningEmulator> {
  const dir = emulatorDirectory();
  const { child, stderr } = spawnJvm(dir, await jvmLaunch(dir), port, dataDir);
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child, stderr);
  } catch (error) {
    process.off('exit', stopOnExit);
    throw error;
  }
  return {
    endpoint,
    stop: async () => {
      process.off('exit', stopOnExit);
      await killAndWait(child);
    },
  };
}

async function waitUntilReady(endpoint: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  try {
    while (Date.now() < deadline) {
      if (/Failed to bind/.test(stderr())) {
        await killAndWait(child);
        throw new PortTakenError(`DynamoDB Local could not bind its port: ${stderr()}`);
      }
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with ${child.exitCode}: ${stderr()}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    child.kill('SIGKILL');
    throw new Error(`DynamoDB Local did not answer within ${STARTUP_TIMEOUT_MS} ms: ${stderr()}`);
  } finally {
    client.destroy();
  }
}

async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3000).unref();
  });
}
