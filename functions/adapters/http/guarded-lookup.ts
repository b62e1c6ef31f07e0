/**
 * The DNS step of an outbound call, checked: every address a name resolves to must be one Chronos
 * may call, and the socket connects to exactly those checked addresses (the lookup is the
 * socket's own), so a name cannot resolve to a public address for the check and to a private one
 * for the connection (DNS rebinding).
 */
import { type LookupAddress, type LookupOptions, lookup } from 'node:dns';
import { Agent, buildConnector } from 'undici';
import { checkAddress, type OutboundRules } from '#core/url-guard';
import { BlockedTargetError } from './outbound-errors.ts';

/** Resolves a hostname to all its addresses. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** The operating system's resolver (what any other client on the machine would connect to). */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    lookup(hostname, { all: true, order: 'verbatim' }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/** The addresses of `hostname` if every one of them may be called; otherwise a BlockedTargetError. */
export async function checkedAddresses(
  hostname: string,
  rules: OutboundRules,
  resolve: Resolver = systemResolver,
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
export function guardedLookup(rules: OutboundRules, resolve: Resolver = systemResolver) {
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
export function guardedAgent(rules: OutboundRules, resolve: Resolver = systemResolver): Agent {
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
