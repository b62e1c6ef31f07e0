/**
 * What `npm start` (bin/local.ts) reads from its command line and environment, and the help that
 * lists all of it. Every environment variable the local runtime reads is named in HELP:
 * test/e2e/npm-start.test.ts greps bin/ and functions/local/ for them and fails on one missing.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import { newApiToken } from '#core/tenants/api-tokens';

export const DEFAULT_PORT = 3000;
export const DEFAULT_HOST = 'localhost';

export const HELP = `Usage: npm start [-- <options>]

Runs Chronos on this machine, no AWS account needed: DynamoDB Local and an SQS emulator, the
API, the scanner, the executors and the completion handler, with the handler code deployed to AWS.

Options
  --data <dir>        Keep jobs, runs, tenants and tokens in <dir> (created if missing): stop and
                      start again on the same folder and they are still there. Without it,
                      everything lives in memory and is gone when Chronos stops.
  -h, --help          Show this help and exit.

Environment variables
  PORT                API port (default ${DEFAULT_PORT}; 0 picks a free one), e.g. PORT=3001 npm start.
  HOST                Address the API listens on (default ${DEFAULT_HOST}).
  CHRONOS_DATA_DIR    Same as --data (--data wins).
  SECRETS_LOCAL_KEY   Base64 key sealing secret headers and signing secrets locally (stands in
                      for KMS). Default: with --data, the one kept in that folder; else a new one.
  CHRONOS_LOCAL_PORTS More loopback ports refused as job targets, comma-separated (the runtime
                      always refuses its own API and emulator ports).

Stop with Ctrl-C (or SIGTERM): the emulators stop with it and every port is freed.`;

export type StartOptions =
  | { kind: 'help' }
  | { kind: 'invalid'; message: string }
  | { kind: 'start'; port: number; host: string; dataDir?: string };

/** Reads the options; never throws (a wrong value is `invalid`, with the line to print). */
export function parseStartOptions(argv: readonly string[], env: NodeJS.ProcessEnv): StartOptions {
  let dataDir = env.CHRONOS_DATA_DIR || undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '-h' || arg === '--help') return { kind: 'help' };
    if (arg === '--data' || arg.startsWith('--data=')) {
      const value = arg === '--data' ? argv[++i] : arg.slice('--data='.length);
      if (!value || value.startsWith('-'))
        return { kind: 'invalid', message: '--data needs a folder, e.g. --data .chronos' };
      dataDir = value;
      continue;
    }
    return { kind: 'invalid', message: `Unknown option ${arg}: see npm start -- --help` };
  }
  const portText = env.PORT || String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    return {
      kind: 'invalid',
      message: `PORT must be a port number from 1 to 65535 (0: any free one), got "${portText}"`,
    };
  }
  const host = env.HOST || DEFAULT_HOST;
  return { kind: 'start', port, host, ...(dataDir ? { dataDir: resolve(dataDir) } : {}) };
}

const KEY_FILE = 'secrets-local-key';
const OPERATOR_TOKEN_FILE = 'operator-token';

/** The local secrets `npm start` hands to the runtime: the key sealing secrets, and the operator's token. */
export interface LocalSecrets {
  secretsLocalKey?: string;
  /** The admin (operator) token: monitoring across tenants, the system view. */
  adminToken: string;
}

/** Secrets for a run without a data folder: a new operator token each start (the key: the runtime's own). */
export function memorySecrets(): LocalSecrets {
  return { adminToken: newApiToken() };
}

/** The content of `file`, or `make()` written to it first (readable by its owner only). */
function keptIn(file: string, make: () => string): string {
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  // An emptied file is not a secret: make a new one rather than print or use an empty value.
  if (kept !== '') return kept;
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return value;
}

/**
 * The data folder, created if missing, and the secrets kept in it (readable by their owner only):
 * the key that seals its secrets, so a restart opens the signing secrets and secret headers an
 * earlier run sealed (SECRETS_LOCAL_KEY, when set, wins), and the operator token, so the one
 * printed before still works.
 */
export function prepareDataDir(dataDir: string, env: NodeJS.ProcessEnv): Required<LocalSecrets> {
  mkdirSync(dataDir, { recursive: true });
  const secretsLocalKey = env.SECRETS_LOCAL_KEY || keptIn(join(dataDir, KEY_FILE), LocalSecretCipher.generateKey);
  return { secretsLocalKey, adminToken: keptIn(join(dataDir, OPERATOR_TOKEN_FILE), newApiToken) };
}
