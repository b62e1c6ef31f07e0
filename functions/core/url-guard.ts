/**
 * Which URLs and addresses Chronos may call on a tenant's behalf. A scheduler that makes HTTP calls
 * for many teams must not become a way into its own network: no loopback, private, link-local,
 * shared (CGNAT), multicast, unspecified or reserved addresses, in any spelling, and never the
 * cloud metadata service. Loopback is allowed only when the operator says so (the local runtime).
 * Nor may a target be Chronos itself: its own API (a job calling its own trigger route would loop,
 * and eat the stage-wide throttle every tenant shares) or, locally, the ports of the local API and
 * the emulators (DynamoDB Local answers any request with any credentials) — loopback allowed or not.
 *
 * Pure: a hostname is checked by its name here; what it resolves to is checked at call time (see
 * adapters/http/guarded-request.ts).
 */
import { type AddressCategory, categoryOf } from './ip-ranges.ts';

export interface OutboundRules {
  /** Allow targets on the loopback interface (127.0.0.0/8, ::1, localhost). Private ranges stay refused. */
  allowLoopback: boolean;
  /** Host names of Chronos' own API (lower case): never a target, on any port. */
  ownHosts?: readonly string[];
  /** Ports of this machine's loopback interface that are Chronos' own (local API, emulators): never a target. */
  ownLoopbackPorts?: readonly number[];
}

export const STRICT_OUTBOUND_RULES: OutboundRules = { allowLoopback: false };

export type TargetCheck = { allowed: true } | { allowed: false; reason: string };

const ALLOWED: TargetCheck = { allowed: true };

const WHY: Record<AddressCategory, string> = {
  metadata: 'the cloud metadata service',
  loopback: 'a loopback address',
  unspecified: 'an unspecified address',
  private: 'a private network address',
  shared: 'a carrier-grade NAT (shared) address',
  'link-local': 'a link-local address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** Names that resolve to this machine (RFC 6761 and common /etc/hosts entries). */
const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback', 'localhost.localdomain']);
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);
/** Suffixes reserved for private networks and the local link. */
const PRIVATE_SUFFIXES = ['.internal', '.local', '.localdomain', '.home.arpa', '.lan', '.intranet', '.corp'];

/** Whether Chronos may connect to this literal IP address (as DNS returns it). Anything else is refused. */
export function checkAddress(address: string, rules: OutboundRules): TargetCheck {
  const category = categoryOf(address);
  if (category === undefined) return { allowed: false, reason: `${address} is not an IP address` };
  if (category === 'public' || (category === 'loopback' && rules.allowLoopback)) return ALLOWED;
  return { allowed: false, reason: `points to ${WHY[category]} (${address})` };
}

/**
 * Checks a URL's host as the URL parser leaves it: odd IPv4 spellings (2130706433, 0177.0.0.1,
 * 0x7f.1, 127.1) are already normalized to dotted quads, IPv6 is bracketed. Names are checked
 * against the reserved ones only; a public-looking name may still resolve to a forbidden address.
 */
function checkHostname(hostname: string, rules: OutboundRules): TargetCheck {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  if (host.startsWith('[')) return checkAddress(host.slice(1, -1), rules);
  if (categoryOf(host) !== undefined) return checkAddress(host, rules);
  if (METADATA_NAMES.has(host)) return { allowed: false, reason: `points to ${WHY.metadata} (${host})` };
  if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost')) {
    return rules.allowLoopback ? ALLOWED : { allowed: false, reason: `points to ${WHY.loopback} (${host})` };
  }
  if (PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix)))
    return { allowed: false, reason: `is a name reserved for private networks (${host})` };
  // A single-label name is completed by the resolver's search domains: an internal service.
  if (!host.includes('.')) return { allowed: false, reason: `is not a fully qualified domain name (${host})` };
  return ALLOWED;
}

/** The port a URL connects to: its own, or its scheme's default. */
function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** True when `hostname` (as the URL parser leaves it) names this machine's loopback interface. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (categoryOf(literal) !== undefined) return categoryOf(literal) === 'loopback';
  return LOOPBACK_NAMES.has(host) || host.endsWith('.localhost');
}

/** Refuses Chronos' own API host, and its own ports on the loopback interface (the local runtime). */
function checkNotChronos(url: URL, rules: OutboundRules): TargetCheck {
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (rules.ownHosts?.includes(host)) return { allowed: false, reason: `points to Chronos' own API (${host})` };
  const port = portOf(url);
  if (rules.ownLoopbackPorts?.includes(port) && isLoopbackHost(url.hostname))
    return { allowed: false, reason: `points to a port of Chronos itself on this machine (${host}:${port})` };
  return ALLOWED;
}

/**
 * Whether a URL may be called: http or https, no credentials, not Chronos itself, and a host that
 * passes checkHostname.
 */
export function checkTargetUrl(url: string | URL, rules: OutboundRules): TargetCheck {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return { allowed: false, reason: 'is not a valid absolute URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return { allowed: false, reason: 'must use http or https' };
  if (parsed.username || parsed.password) return { allowed: false, reason: 'must not carry credentials; use a header' };
  const own = checkNotChronos(parsed, rules);
  if (!own.allowed) return own;
  return checkHostname(parsed.hostname, rules);
}
