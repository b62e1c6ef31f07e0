/**
 * A TLS certificate for local https targets (127.0.0.1 and localhost), made fresh with openssl
 * and added to this process' default trust store, so https calls to it are verified as any other.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

export interface Certificate {
  key: string;
  cert: string;
}

export function trustedLocalCertificate(): Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'chronos-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    const certificate = {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
    setDefaultCACertificates([...getCACertificates('default'), certificate.cert]);
    return certificate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
