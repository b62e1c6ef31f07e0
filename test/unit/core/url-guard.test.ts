import { describe, expect, it } from 'vitest';
import { categoryOf } from '#core/ip-ranges';
import { isRetryable } from '#core/retry-policy';
import { checkAddress, checkTargetUrl, type OutboundRules, STRICT_OUTBOUND_RULES } from '#core/url-guard';

const STRICT = STRICT_OUTBOUND_RULES;
const LOOPBACK_ALLOWED: OutboundRules = { allowLoopback: true };

const reasonOf = (url: string, rules: OutboundRules = STRICT) => {
  const check = checkTargetUrl(url, rules);
  return check.allowed ? undefined : check.reason;
};

describe('classifying addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['64:ff9b:1::1', 'reserved'],
  ])('%s is %s', (address, category) => {
    expect(categoryOf(address)).toBe(category);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:100.64.0.1', 'shared'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['::a9fe:a9fe', 'metadata'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['64:ff9b::c0a8:101', 'private'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:c0a8:101::1', 'private'],
  ])('sees the IPv4 address inside %s (%s)', (address, category) => {
    expect(categoryOf(address)).toBe(category);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '93.184.215.14',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('%s is public', (address) => {
    expect(categoryOf(address)).toBe('public');
  });

  it('does not take names or garbage for addresses', () => {
    expect(categoryOf('example.com')).toBeUndefined();
    expect(categoryOf('127.0.0.1.nip.io')).toBeUndefined();
    expect(checkAddress('not-an-ip', LOOPBACK_ALLOWED)).toMatchObject({ allowed: false });
  });
});

describe('checking addresses', () => {
  it('refuses loopback unless allowed, and allows it then', () => {
    expect(checkAddress('127.0.0.1', STRICT)).toEqual({
      allowed: false,
      reason: 'points to a loopback address (127.0.0.1)',
    });
    expect(checkAddress('127.0.0.1', LOOPBACK_ALLOWED)).toEqual({ allowed: true });
    expect(checkAddress('::1', LOOPBACK_ALLOWED)).toEqual({ allowed: true });
    expect(checkAddress('::ffff:127.0.0.1', LOOPBACK_ALLOWED)).toEqual({ allowed: true });
  });

  it.each([
    '10.0.0.1',
    '192.168.0.10',
    '169.254.169.254',
    'fd00:ec2::254',
    '0.0.0.0',
    '::',
    '100.64.0.1',
    'fe80::1',
    '::ffff:192.168.0.1',
  ])('refuses %s even when loopback is allowed', (address) => {
    expect(checkAddress(address, LOOPBACK_ALLOWED).allowed).toBe(false);
  });

  it('names the metadata service as such', () => {
    expect(checkAddress('169.254.169.254', LOOPBACK_ALLOWED)).toEqual({
      allowed: false,
      reason: 'points to the cloud metadata service (169.254.169.254)',
    });
  });

  it('allows public addresses', () => {
    expect(checkAddress('8.8.8.8', STRICT)).toEqual({ allowed: true });
    expect(checkAddress('2606:4700:4700::1111', STRICT)).toEqual({ allowed: true });
  });
});

describe('checking target URLs', () => {
  it('allows public http and https URLs with names', () => {
    expect(checkTargetUrl('https://example.com/hook', STRICT)).toEqual({ allowed: true });
    expect(checkTargetUrl('http://api.example.com:8080/x?y=1', STRICT)).toEqual({ allowed: true });
    expect(checkTargetUrl('https://8.8.8.8/', STRICT)).toEqual({ allowed: true });
    expect(checkTargetUrl('https://[2606:4700:4700::1111]/', STRICT)).toEqual({ allowed: true });
  });

  it('refuses other schemes, credentials and relative URLs', () => {
    expect(reasonOf('ftp://example.com/')).toBe('must use http or https');
    expect(reasonOf('file:///etc/passwd')).toBe('must use http or https');
    expect(reasonOf('gopher://example.com/')).toBe('must use http or https');
    expect(reasonOf('https://u:p@example.com/')).toBe('must not carry credentials; use a header');
    expect(reasonOf('/relative')).toBe('is not a valid absolute URL');
  });

  it.each([
    ['http://2130706433/', 'decimal'],
    ['http://0177.0.0.1/', 'octal'],
    ['http://0x7f.1/', 'hex, short'],
    ['http://0x7f000001/', 'hex'],
    ['http://127.1/', 'short'],
    ['http://127.0.0.1./', 'trailing dot'],
    ['http://[::1]/', 'IPv6'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', 'IPv4-mapped, long'],
    ['http://[64:ff9b::7f00:1]/', 'NAT64'],
  ])('sees loopback in %s (%s)', (url) => {
    expect(reasonOf(url)).toMatch(/^points to a loopback address/);
    expect(checkTargetUrl(url, LOOPBACK_ALLOWED)).toEqual({ allowed: true });
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/',
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://0251.0376.0251.0376/',
    'http://[::ffff:169.254.169.254]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[fd00:ec2::254]/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://metadata.google.internal./',
    'http://METADATA.goog/',
    'http://instance-data/',
  ])('always refuses the metadata service: %s', (url) => {
    expect(reasonOf(url, LOOPBACK_ALLOWED)).toMatch(/^points to the cloud metadata service/);
  });

  it.each([
    ['http://10.0.0.1/', /private network address/],
    ['http://012.0.0.1/', /private network address/],
    ['http://192.168.1.1:8080/', /private network address/],
    ['http://[fd00::1]/', /private network address/],
    ['http://100.64.0.1/', /shared/],
    ['http://[fe80::1]/', /link-local/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://[::]/', /unspecified/],
    ['http://224.0.0.1/', /multicast/],
    ['http://[ff02::1]/', /multicast/],
    ['http://255.255.255.255/', /reserved/],
    ['http://service.internal/', /reserved for private networks/],
    ['http://printer.local/', /reserved for private networks/],
    ['http://nas.home.arpa/', /reserved for private networks/],
    ['http://redis:6379/', /not a fully qualified domain name/],
  ])('refuses %s even when loopback is allowed', (url, reason) => {
    expect(reasonOf(url, LOOPBACK_ALLOWED)).toMatch(reason);
  });

  it('treats localhost names as loopback', () => {
    for (const url of [
      'http://localhost:3000/',
      'http://LOCALHOST./',
      'http://app.localhost/',
      'http://ip6-localhost/',
    ]) {
      expect(reasonOf(url)).toMatch(/^points to a loopback address/);
      expect(checkTargetUrl(url, LOOPBACK_ALLOWED)).toEqual({ allowed: true });
    }
  });

  it('leaves names that merely look internal to the call-time check', () => {
    expect(checkTargetUrl('http://127.0.0.1.nip.io/', STRICT)).toEqual({ allowed: true });
    expect(checkTargetUrl('http://localhost.example.com/', STRICT)).toEqual({ allowed: true });
  });
});

describe('a refused target', () => {
  it('is never retried', () => {
    const policy = { maxAttempts: 5, initialDelaySeconds: 1, maxDelaySeconds: 60, multiplier: 2 };
    expect(isRetryable({ errorType: 'blocked_target' }, policy)).toBe(false);
    expect(isRetryable({ errorType: 'connection' }, policy)).toBe(true);
  });
});

describe('Chronos itself is never a target', () => {
  const LOCAL: OutboundRules = { allowLoopback: true, ownLoopbackPorts: [8000, 4566, 3000] };
  const DEPLOYED: OutboundRules = { allowLoopback: false, ownHosts: ['abc123.execute-api.eu-west-1.amazonaws.com'] };

  it.each([
    'http://127.0.0.1:8000/',
    'http://localhost:8000/',
    'http://LOCALHOST.:4566/',
    'http://api.localhost:3000/v1/jobs/x/trigger',
    'http://127.0.0.2:8000/',
    'http://2130706433:8000/',
    'http://[::1]:4566/',
    'http://[::ffff:127.0.0.1]:3000/',
  ])('refuses its own local ports on any loopback spelling, loopback allowed or not: %s', (url) => {
    expect(reasonOf(url, LOCAL)).toMatch(/port of Chronos itself/);
    expect(reasonOf(url, STRICT)).toBeDefined();
  });

  it('still allows other loopback ports when loopback is allowed', () => {
    expect(reasonOf('http://127.0.0.1:8001/', LOCAL)).toBeUndefined();
    expect(reasonOf('http://localhost:9999/', LOCAL)).toBeUndefined();
  });

  it("refuses its own API host on any port and scheme, in any case, and not others' API hosts", () => {
    expect(reasonOf('https://abc123.execute-api.eu-west-1.amazonaws.com/prod/v1/jobs/J/trigger', DEPLOYED)).toMatch(
      /Chronos' own API/,
    );
    expect(reasonOf('http://ABC123.execute-api.eu-west-1.amazonaws.com.:8443/', DEPLOYED)).toMatch(/Chronos' own API/);
    expect(reasonOf('https://other99.execute-api.eu-west-1.amazonaws.com/prod', DEPLOYED)).toBeUndefined();
  });
});
