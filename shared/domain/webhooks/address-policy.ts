import { BlockList, isIP } from 'node:net';

/**
 * Which network addresses a webhook may be delivered to (server-side request forgery policy). A webhook URL
 * is chosen by a customer, and our workers run inside AWS: without this policy a URL could make the worker
 * call the instance metadata service, our VPC, or the worker's own loopback services. Only public unicast
 * addresses are allowed (IPv6: global unicast 2000::/3 only); loopback only when the embedded development stack
 * allows it.
 */
export interface AddressPolicy {
  /** 127.0.0.0/8 and ::1: the developer's own machine (embedded stack only; never in AWS). */
  allowLoopback: boolean;
}

type Range = [address: string, prefix: number];

/** Address blocks a webhook may never reach, by the reason given to the caller. */
const FORBIDDEN: ReadonlyArray<{ reason: string; family: 'ipv4' | 'ipv6'; ranges: Range[] }> = [
  { reason: 'a loopback address', family: 'ipv4', ranges: [['127.0.0.0', 8]] },
  { reason: 'a loopback address', family: 'ipv6', ranges: [['::1', 128]] },
  {
    // 169.254.169.254 is the EC2/ECS/Lambda metadata endpoint; fd00:ec2::254 its IPv6 twin (below).
    reason: 'a link-local or cloud metadata address',
    family: 'ipv4',
    ranges: [['169.254.0.0', 16]],
  },
  { reason: 'a link-local address', family: 'ipv6', ranges: [['fe80::', 10]] },
  {
    reason: 'a private address',
    family: 'ipv4',
    ranges: [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10], // carrier-grade NAT, also used inside cloud networks
    ],
  },
  {
    // fc00::/7 covers fd00::/8 (unique local, incl. the metadata address fd00:ec2::254); fec0::/10 site-local.
    reason: 'a private (unique local or site-local) address',
    family: 'ipv6',
    ranges: [
      ['fc00::', 7],
      ['fec0::', 10],
    ],
  },
  {
    reason: 'a reserved, unspecified, multicast or documentation address',
    family: 'ipv4',
    ranges: [
      ['0.0.0.0', 8],
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.88.99.0', 24], // 6to4 relay anycast
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['224.0.0.0', 4],
      ['240.0.0.0', 4], // includes 255.255.255.255
    ],
  },
  {
    // ::/96 (unspecified and IPv4-compatible), discard, documentation, multicast, and the tunnelling
    // prefixes (NAT64, 6to4, Teredo) whose embedded IPv4 address could be anything.
    reason: 'a reserved, unspecified, multicast, documentation or tunnelling address',
    family: 'ipv6',
    ranges: [
      ['::', 96],
      ['100::', 64],
      ['2001:db8::', 32],
      ['ff00::', 8],
      ['64:ff9b::', 96],
      ['64:ff9b:1::', 48],
      ['2002::', 16],
      ['2001::', 23], // IETF special-purpose block: Teredo 2001::/32, benchmarking, ORCHID and the rest
      ['3fff::', 20], // documentation (RFC 9637)
    ],
  },
];

/**
 * IPv6 is allowed only inside the global unicast space, 2000::/3 (RFC 4291), less the blocks above: anything
 * else (IPv4-translated ::ffff:0:0:0/96, NAT64, discard, reserved and future ranges) is refused even if no
 * block names it. IPv4-mapped addresses (::ffff:a.b.c.d) are judged as the IPv4 address they carry.
 */
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

const BLOCKS = FORBIDDEN.map(({ reason, family, ranges }) => {
  const list = new BlockList();
  for (const [address, prefix] of ranges) list.addSubnet(address, prefix, family);
  return { reason, family, list, loopback: reason === 'a loopback address' };
});

/** `::ffff:a.b.c.d` in any spelling, as the IPv4 address it carries; otherwise null. */
export function mappedIpv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  // The URL parser writes IPv6 canonically (lower case, compressed, hex groups), whatever the input spelling.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const match = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!match) return null;
  const high = parseInt(match[1]!, 16);
  const low = parseInt(match[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/**
 * Why a webhook may not connect to `address` (an IP address, as DNS returns it or a URL carries it), or null
 * when it may. Anything that is not an IP address is refused.
 */
export function forbiddenAddressReason(address: string, policy: AddressPolicy): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const version = isIP(bare);
  if (version === 0) return 'not an IP address';
  const mapped = mappedIpv4(bare);
  if (mapped !== null) {
    const reason = forbiddenAddressReason(mapped, policy);
    return reason === null ? null : `${reason} (IPv4-mapped)`;
  }
  const family = version === 4 ? 'ipv4' : 'ipv6';
  for (const block of BLOCKS) {
    if (block.family !== family || !block.list.check(bare, family)) continue;
    if (block.loopback && policy.allowLoopback) return null;
    return block.reason;
  }
  if (family === 'ipv6' && !GLOBAL_UNICAST_V6.check(bare, 'ipv6')) return 'not a global unicast address';
  return null;
}

export function isLoopbackAddress(address: string): boolean {
  const reason = forbiddenAddressReason(address, { allowLoopback: false });
  return reason !== null && reason.startsWith('a loopback address');
}
