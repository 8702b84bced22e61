import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may not go unless WEBHOOK_ALLOW_PRIVATE_TARGETS allows it: loopback, link-local
 * (cloud metadata at 169.254.169.254), private, shared (CGNAT), unspecified, multicast and reserved
 * addresses, in IPv4 and IPv6. An IPv6 address that carries an IPv4 one (IPv4-mapped ::ffff:0:0/96,
 * IPv4-translated ::ffff:0:0:0/96, compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16) is checked as
 * the IPv4 address it carries, in any spelling, so none reaches a private host and a public one stays
 * reachable (DNS64 answers public hosts with 64:ff9b::/96). Local-use NAT64, 64:ff9b:1::/48, places
 * the IPv4 address as its operator chooses, so all of it is refused.
 */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
  ['64:ff9b:1::', 48],
  // No rule for ::ffff:0:0/96 here: BlockList matches a plain IPv4 address against it, so it would
  // refuse every IPv4 address. Those addresses are checked as the IPv4 they carry (embeddedV4).
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv6');

/**
 * The eight 16-bit groups of an IPv6 address, in whatever spelling it came (zeros compressed or not,
 * a dotted IPv4 tail, upper case): the URL parser writes it canonically first. Undefined if invalid.
 */
function groupsOf(v6: string): number[] | undefined {
  let canonical: string;
  try {
    canonical = new URL(`http://[${v6}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const [head, tail] = canonical.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = canonical.includes('::') ? 8 - h.length - t.length : 0;
  const all = [...h, ...Array(fill).fill('0'), ...t].map((g) => Number.parseInt(g, 16));
  return all.length === 8 && all.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? all : undefined;
}

/** The IPv4 address an IPv6 one carries (mapped, translated, compatible, NAT64, 6to4), if any. */
function embeddedV4(groups: number[]): string | undefined {
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated, SIIT), ::a.b.c.d (deprecated compatible;
  // :: and ::1 are themselves), 64:ff9b::a.b.c.d (NAT64).
  if (zero(0, 5) && groups[5] === 0xffff) return v4(groups[6], groups[7]);
  if (zero(0, 4) && groups[4] === 0xffff && groups[5] === 0) return v4(groups[6], groups[7]);
  if (zero(0, 6) && (groups[6] || groups[7] > 1)) return v4(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return v4(groups[6], groups[7]);
  // 2002:AABB:CCDD::/48 is 6to4 of AA.BB.CC.DD.
  if (groups[0] === 0x2002) return v4(groups[1], groups[2]);
  return undefined;
}

/** Whether an address (v4 or v6) is one webhooks must not reach by default. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  const bare = address.split('%')[0];
  const groups = groupsOf(bare);
  if (!groups) return true;
  const v4 = embeddedV4(groups);
  if (v4 !== undefined) return BLOCKED.check(v4, 'ipv4');
  return BLOCKED.check(bare, 'ipv6');
}

export class TargetRefused extends Error {}

/** Only http(s) URLs without credentials; the reason otherwise. */
export function checkUrlShape(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TargetRefused('is not a valid absolute URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new TargetRefused('must be http or https');
  if (u.username || u.password) throw new TargetRefused('must not carry credentials');
  if (raw.length > 2048) throw new TargetRefused('must be at most 2048 characters');
  return u;
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;
const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * Resolves the URL's host and checks every address it has (an attacker's name may have one public
 * and one private address). Returns the address to connect to, so the send cannot be pointed
 * elsewhere by a second, different DNS answer (DNS rebinding).
 */
export async function resolveTarget(
  url: URL,
  allowPrivate: boolean,
  resolve: Resolver = systemResolver,
): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addrs: { address: string; family: number }[];
  if (isIP(host)) addrs = [{ address: host, family: isIP(host) }];
  else {
    try {
      addrs = await resolve(host);
    } catch {
      throw new TargetRefused(`host ${host} does not resolve`);
    }
  }
  if (!addrs.length) throw new TargetRefused(`host ${host} does not resolve`);
  if (!allowPrivate) {
    const bad = addrs.find((a) => isBlockedAddress(a.address));
    if (bad)
      throw new TargetRefused(
        `resolves to ${bad.address}, a loopback, link-local or private address (WEBHOOK_ALLOW_PRIVATE_TARGETS=1 allows it)`,
      );
  }
  return addrs[0];
}
