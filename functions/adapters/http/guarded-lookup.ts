/**
 * The DNS step of an outbound call, checked: every address a name resolves to must be one Chronos
 * may call, and the socket connects to exactly those checked addresses (the lookup is the
 * socket's own), so a name cannot resolve to a public address for the check and to a private one
 * for the connection (DNS rebinding).
 */
import { type LookupAddress, type LookupOptions, lookup } from 'node:dns';
import { Agent } from 'undici';
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

/** Resolves with `resolve`, refuses the name if any address is forbidden, and hands the socket the checked ones. */
export function guardedLookup(rules: OutboundRules, resolve: Resolver = systemResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.map(({ address }) => checkAddress(address, rules)).find((check) => !check.allowed);
        if (refused && !refused.allowed) return callback(new BlockedTargetError(hostname, refused.reason), []);
        const usable =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        const [first] = usable;
        if (!first) {
          const error = Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' });
          return callback(error, []);
        }
        if (options.all) callback(null, usable);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, []),
    );
  };
}

/** An undici dispatcher whose every new connection goes through guardedLookup. */
export function guardedAgent(rules: OutboundRules, resolve: Resolver = systemResolver): Agent {
  return new Agent({ connect: { lookup: guardedLookup(rules, resolve) } });
}
