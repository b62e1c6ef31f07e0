import { describe, expect, it } from 'vitest';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import type { FieldProblem } from '#core/errors';
import { parseCreateJobRequest } from '#core/job-input';
import { parseSecretHeaders } from '#core/secrets/secret-header-input';
import { openSecretHeaders, redactedTarget, sealSecretHeaders } from '#core/secrets/secret-headers';

const cipher = new LocalSecretCipher(LocalSecretCipher.generateKey());

describe('secret headers', () => {
  it('seals to something that contains no secret and opens only for the same tenant', async () => {
    const sealed = await sealSecretHeaders(cipher, 'tenant-a', { Authorization: 'Bearer target-secret-123' });

    expect(sealed?.names).toEqual(['Authorization']);
    expect(JSON.stringify(sealed)).not.toContain('target-secret-123');
    expect(await openSecretHeaders(cipher, 'tenant-a', sealed as NonNullable<typeof sealed>)).toEqual({
      Authorization: 'Bearer target-secret-123',
    });
    await expect(openSecretHeaders(cipher, 'tenant-b', sealed as NonNullable<typeof sealed>)).rejects.toThrow();
  });

  it('cannot be opened with another key, nor after tampering', async () => {
    const sealed = (await sealSecretHeaders(cipher, 't', { 'X-Key': 'v' })) as { names: string[]; sealed: string };
    const otherKey = new LocalSecretCipher(LocalSecretCipher.generateKey());
    // One character in the middle of the sealed text changed (never to itself).
    const at = Math.floor(sealed.sealed.length / 2);
    const flipped = `${sealed.sealed.slice(0, at)}${sealed.sealed[at] === 'A' ? 'B' : 'A'}${sealed.sealed.slice(at + 1)}`;

    await expect(openSecretHeaders(otherKey, 't', sealed)).rejects.toThrow();
    await expect(openSecretHeaders(cipher, 't', { ...sealed, sealed: flipped })).rejects.toThrow();
  });

  it('shows each secret value as *** and never the sealed blob', () => {
    const view = redactedTarget({
      url: 'https://x.example',
      method: 'POST',
      headers: { a: 'b' },
      secretHeaders: { names: ['Authorization'], sealed: 'v1.abc.def' },
    });
    expect(view).toEqual({
      url: 'https://x.example',
      method: 'POST',
      headers: { a: 'b' },
      secretHeaders: { Authorization: '***' },
    });
  });

  it('applies the header rules to secret headers, naming target.secretHeaders.<name>', () => {
    const problems: FieldProblem[] = [];
    parseSecretHeaders({ 'Bad Name': 'x', Good: 'a\r\nInjected: 1', 'X-Team': 'y' }, { 'x-team': 'z' }, problems);
    expect(problems.map((p) => p.field).sort()).toEqual([
      'target.secretHeaders.Bad Name',
      'target.secretHeaders.Good',
      'target.secretHeaders.X-Team',
    ]);
  });

  it('keeps plaintext secrets apart from the job fields at parse time', () => {
    const parsed = parseCreateJobRequest(
      {
        target: { url: 'https://x.example/h', secretHeaders: { Authorization: 'Bearer s' } },
        schedule: { type: 'once' },
      },
      Date.parse('2026-06-01T00:00:00Z'),
    );
    expect(parsed.secretHeaders).toEqual({ Authorization: 'Bearer s' });
    expect(JSON.stringify(parsed.fields)).not.toContain('Bearer s');
  });
});
