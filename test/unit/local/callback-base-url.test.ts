/** Where a local async job's worker calls back: the local API, as a worker on this machine reaches it. */
import { describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import { localApiBaseUrl } from '#local/chronos-local';
import { functionEnvironment } from '#local/function-environment';

describe('the local callback base URL', () => {
  it('is the API address, a wildcard listen address reached through loopback', () => {
    expect(localApiBaseUrl(undefined, 3000)).toBe('http://127.0.0.1:3000');
    expect(localApiBaseUrl('0.0.0.0', 3000)).toBe('http://127.0.0.1:3000');
    expect(localApiBaseUrl('::', 3000)).toBe('http://[::1]:3000');
    expect(localApiBaseUrl('192.168.1.5', 8080)).toBe('http://192.168.1.5:8080');
    expect(localApiBaseUrl('::1', 8080)).toBe('http://[::1]:8080');
  });

  it('is set for the functions when given, and left alone when not (a process without the API)', () => {
    const settings = {
      endpoints: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:2' },
      resources: {
        tables: { jobs: 'j', runs: 'r', tenants: 't', metrics: 'm' },
        runsStreamArn: 'arn',
        queues: {
          dispatch: { url: 'd' },
          deadLetter: { url: 'dl' },
          dispatchHigh: { url: 'dh' },
          deadLetterHigh: { url: 'dlh' },
          dispatchLow: { url: 'dlo' },
          deadLetterLow: { url: 'dllo' },
          notices: { url: 'n' },
        },
      },
      quotas: {},
      secretsLocalKey: 'k',
      allowLoopbackTargets: true,
      concurrency: 1,
      dueShardCount: 1,
      scanHorizonSeconds: 90,
    } as unknown as Parameters<typeof functionEnvironment>[0];
    expect(functionEnvironment({ ...settings, callbackBaseUrl: 'http://127.0.0.1:4000' })[ENV.callbackBaseUrl]).toBe(
      'http://127.0.0.1:4000',
    );
    expect(ENV.callbackBaseUrl in functionEnvironment(settings)).toBe(false);
  });
});
