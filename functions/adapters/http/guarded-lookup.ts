/**
 * The DNS step of an outbound call, checked: every address a name resolves to must be one Chronos
 * may call, and the socket connects to exactly those checked addresses (the lookup is the
 * socket's own), so a name cannot resolve to a public address for the check and to a private one
 * for the connection (DNS rebinding).
 *
 * Target names are resolved by c-ares (dns.promises.Resolver), on its own sockets and timers with
 * its own timeout, never by getaddrinfo: that runs on libuv's 4-thread pool, which the AWS SDK's
 * own lookups (DynamoDB, SQS) and file reads share. A tenant whose name server never answers
 * would otherwise hold those threads for the system resolver's full timeout and stall every other
 * tenant's calls and the executor's own writes.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { Resolver as DnsResolver, lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { checkAddress, type OutboundRules } from '#core/url-guard';
import { BlockedTargetError } from './outbound-errors.ts';

/** Resolves a hostname to all its addresses. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** How long c-ares waits for a name server's answer before trying again (doubled on each try). */
export const DEFAULT_DNS_TIMEOUT_MS = 2_000;
/** Tries per name server: a lookup gives up after about 2 + 4 s per server, whatever the job's timeout. */
export const DEFAULT_DNS_TRIES = 2;

export interface TargetResolverOptions {
  /** Name servers (`ip` or `ip:port`); default: the system's (resolv.conf). Tests point it at their own. */
  servers?: readonly string[];
  timeoutMs?: number;
  tries?: number;
}

/** Names the hosts file answers for the loopback interface (url-guard.ts allows them with loopback only). */
const HOSTS_FILE_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback', 'localhost.localdomain']);

/** `localhost` and its kin: answered from /etc/hosts, which c-ares does not read (RFC 6761: `*.localhost` too). */
function isHostsFileName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return HOSTS_FILE_NAMES.has(name) || name.endsWith('.localhost');
}

/** The hosts file's answer: getaddrinfo, which never waits on the network for these names. */
async function fromHostsFile(hostname: string): Promise<LookupAddress[]> {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  const asked = name.endsWith('.localhost') ? 'localhost' : name;
  return lookup(asked, { all: true, order: 'verbatim' });
}

/**
 * Resolves target names with c-ares (A and AAAA), bounded by its own timeout and off the thread
 * pool. An address literal is itself; `localhost` and its kin are what /etc/hosts says.
 */
export function targetResolver(options: TargetResolverOptions = {}): Resolver {
  const dns = new DnsResolver({
    timeout: options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS,
    tries: options.tries ?? DEFAULT_DNS_TRIES,
  });
  if (options.servers && options.servers.length > 0) dns.setServers([...options.servers]);
  return async (hostname) => {
    const literal = isIP(hostname);
    if (literal) return [{ address: hostname, family: literal }];
    if (isHostsFileName(hostname)) return fromHostsFile(hostname);
    const [v4, v6] = await Promise.allSettled([dns.resolve4(hostname), dns.resolve6(hostname)]);
    const addresses = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length > 0) return addresses;
    // Neither family answered: the A lookup's error says why (ETIMEOUT, ENOTFOUND, ESERVFAIL...).
    const reason = v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : undefined;
    throw reason ?? Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND', hostname });
  };
}

/** The resolver target calls use unless told otherwise. */
export const defaultTargetResolver: Resolver = targetResolver();

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** The addresses of `hostname` if every one of them may be called; otherwise a BlockedTargetError. */
export async function checkedAddresses(
  hostname: string,
  rules: OutboundRules,
  resolve: Resolver = defaultTargetResolver,
): Promise<LookupAddress[]> {
  const addresses = await resolve(hostname);
  for (const { address } of addresses) {
    const check = checkAddress(address, rules);
    if (!check.allowed) throw new BlockedTargetError(hostname, check.reason);
  }
  if (addresses.length === 0)
    throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND', hostname });
  return addresses;
}

/** A socket lookup that hands the socket only addresses checkedAddresses accepted. */
export function guardedLookup(rules: OutboundRules, resolve: Resolver = defaultTargetResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    checkedAddresses(hostname, rules, resolve).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        const [first] = usable;
        if (!first)
          callback(Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: 'ENOTFOUND' }), []);
        else if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, []),
    );
  };
}

/**
 * An undici dispatcher whose every new connection goes through guardedLookup. A connection to one
 * of Chronos' own loopback ports (rules.ownLoopbackPorts: the local API, the emulators) resolves
 * with loopback refused, so a public name that resolves to 127.0.0.1 cannot reach them either.
 */
export function guardedAgent(rules: OutboundRules, resolve: Resolver = defaultTargetResolver): Agent {
  const ownPorts = new Set(rules.ownLoopbackPorts ?? []);
  if (ownPorts.size === 0) return new Agent({ connect: { lookup: guardedLookup(rules, resolve) } });
  const anyPort = buildConnector({ lookup: guardedLookup(rules, resolve) });
  const ownPort = buildConnector({ lookup: guardedLookup({ ...rules, allowLoopback: false }, resolve) });
  return new Agent({
    connect: (options, callback) => {
      const port = options.port === '' ? (options.protocol === 'https:' ? 443 : 80) : Number(options.port);
      (ownPorts.has(port) ? ownPort : anyPort)(options, callback);
    },
  });
}
