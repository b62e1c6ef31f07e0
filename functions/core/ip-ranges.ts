/**
 * The address ranges Chronos never calls on a tenant's behalf, by category, in node:net BlockLists.
 * IPv4 ranges are also listed in every IPv6 spelling that carries an IPv4 address (IPv4-mapped,
 * IPv4-compatible, NAT64 and 6to4), so `::ffff:10.0.0.1` or `64:ff9b::a9fe:a9fe` is what it points to.
 * Pure: no DNS, no sockets.
 */
import { BlockList, isIP } from 'node:net';

export type AddressCategory =
  | 'metadata'
  | 'loopback'
  | 'unspecified'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'multicast'
  | 'reserved';

type Cidr = readonly [address: string, prefix: number];

/** Checked in this order: the first category that matches names the address. */
const IPV4: ReadonlyArray<readonly [AddressCategory, Cidr]> = [
  // Instance metadata and credentials: AWS/GCP/Azure, ECS task metadata, Alibaba, Oracle.
  ['metadata', ['169.254.169.254', 32]],
  ['metadata', ['169.254.170.2', 32]],
  ['metadata', ['100.100.100.200', 32]],
  ['metadata', ['192.0.0.192', 32]],
  ['loopback', ['127.0.0.0', 8]],
  ['unspecified', ['0.0.0.0', 8]],
  ['private', ['10.0.0.0', 8]],
  ['private', ['172.16.0.0', 12]],
  ['private', ['192.168.0.0', 16]],
  ['shared', ['100.64.0.0', 10]],
  ['link-local', ['169.254.0.0', 16]],
  ['multicast', ['224.0.0.0', 4]],
  // IETF protocol assignments, documentation, benchmarking, 6to4 relays, 240/4 and broadcast.
  ['reserved', ['192.0.0.0', 24]],
  ['reserved', ['192.0.2.0', 24]],
  ['reserved', ['192.88.99.0', 24]],
  ['reserved', ['198.18.0.0', 15]],
  ['reserved', ['198.51.100.0', 24]],
  ['reserved', ['203.0.113.0', 24]],
  ['reserved', ['240.0.0.0', 4]],
];

const IPV6: ReadonlyArray<readonly [AddressCategory, Cidr]> = [
  ['metadata', ['fd00:ec2::254', 128]],
  ['loopback', ['::1', 128]],
  ['unspecified', ['::', 128]],
  ['private', ['fc00::', 7]],
  ['private', ['fec0::', 10]],
  ['link-local', ['fe80::', 10]],
  ['multicast', ['ff00::', 8]],
  // IPv4-compatible (deprecated) of anything not listed above, discard-only, Teredo, local-use
  // NAT64, documentation.
  ['reserved', ['::', 96]],
  ['reserved', ['100::', 64]],
  ['reserved', ['2001::', 32]],
  ['reserved', ['64:ff9b:1::', 48]],
  ['reserved', ['2001:db8::', 32]],
  ['reserved', ['3fff::', 20]],
];

/** The IPv6 prefixes that embed an IPv4 address, and where it sits. */
const IPV4_CARRIERS: ReadonlyArray<(hi: string, lo: string) => Cidr> = [
  (hi, lo) => [`::ffff:${hi}:${lo}`, 96],
  (hi, lo) => [`::${hi}:${lo}`, 96],
  (hi, lo) => [`64:ff9b::${hi}:${lo}`, 96],
  (hi, lo) => [`2002:${hi}:${lo}::`, 16],
];

function ipv6ImagesOf([address, prefix]: Cidr): Cidr[] {
  const [a = 0, b = 0, c = 0, d = 0] = address.split('.').map(Number);
  const hi = ((a << 8) | b).toString(16);
  const lo = ((c << 8) | d).toString(16);
  return IPV4_CARRIERS.map((carrier) => {
    const [image, offset] = carrier(hi, lo);
    return [image, offset + prefix] as const;
  });
}

const CATEGORY_ORDER: readonly AddressCategory[] = [
  'metadata',
  'loopback',
  'unspecified',
  'private',
  'shared',
  'link-local',
  'multicast',
  'reserved',
];

const LISTS = new Map<AddressCategory, BlockList>(CATEGORY_ORDER.map((category) => [category, new BlockList()]));
for (const [category, cidr] of IPV4) {
  const list = LISTS.get(category) as BlockList;
  list.addSubnet(cidr[0], cidr[1], 'ipv4');
  for (const image of ipv6ImagesOf(cidr)) list.addSubnet(image[0], image[1], 'ipv6');
}
for (const [category, cidr] of IPV6) (LISTS.get(category) as BlockList).addSubnet(cidr[0], cidr[1], 'ipv6');

/**
 * The category of a literal IP address (IPv6 with or without a zone id), `public` when it is in
 * none, or undefined when the string is not an IP address at all.
 */
export function categoryOf(address: string): AddressCategory | 'public' | undefined {
  // A zone id (fe80::1%eth0) makes BlockList miss the range; the zone does not change the address.
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const category of CATEGORY_ORDER) if (LISTS.get(category)?.check(bare, type)) return category;
  return 'public';
}
