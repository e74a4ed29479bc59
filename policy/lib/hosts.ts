/**
 * Host classification for delivery URLs. The service never delivers to a host that
 * resolves to a private or non-public address (spec 2: `blocked_address`), so an
 * endpoint pointed at one is dead on arrival. A policy can only judge what the URL
 * says, not what DNS will answer: IP literals by range, and names that by
 * convention never resolve publicly.
 *
 * IP literals are read through WHATWG URL parsing first, so obfuscated forms
 * (`0x7f.1`, `2130706433`, `[::ffff:10.0.0.1]`) are seen as the address they are.
 */
import { isIP } from "node:net";

export interface BlockedHost {
  /** e.g. "a loopback address (127.0.0.0/8)". */
  reason: string;
}

interface Ipv4Range {
  base: number;
  bits: number;
  reason: string;
}

const ipv4 = (s: string): number => s.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);

const IPV4_BLOCKED: Ipv4Range[] = [
  { base: ipv4("10.0.0.0"), bits: 8, reason: "a private address (10.0.0.0/8)" },
  { base: ipv4("172.16.0.0"), bits: 12, reason: "a private address (172.16.0.0/12)" },
  { base: ipv4("192.168.0.0"), bits: 16, reason: "a private address (192.168.0.0/16)" },
  { base: ipv4("127.0.0.0"), bits: 8, reason: "a loopback address (127.0.0.0/8)" },
  { base: ipv4("169.254.0.0"), bits: 16, reason: "a link-local address (169.254.0.0/16)" },
  // 0.0.0.0 reaches the local machine on most systems: as good as loopback.
  { base: ipv4("0.0.0.0"), bits: 8, reason: "an unspecified address (0.0.0.0/8)" },
];

/** Name suffixes that never resolve on the public internet. */
const BLOCKED_NAMES: { matches: (host: string) => boolean; reason: string }[] = [
  { matches: (h) => h === "localhost" || h.endsWith(".localhost"), reason: "a loopback name (localhost, *.localhost)" },
  { matches: (h) => h === "internal" || h.endsWith(".internal"), reason: "an internal-only name (*.internal)" },
  { matches: (h) => h === "local" || h.endsWith(".local"), reason: "a link-local multicast DNS name (*.local)" },
];

function classifyIpv4(address: string): BlockedHost | undefined {
  const n = ipv4(address);
  for (const r of IPV4_BLOCKED) {
    const size = 2 ** (32 - r.bits);
    if (n >= r.base && n < r.base + size) return { reason: r.reason };
  }
  return undefined;
}

/**
 * Expand an IPv6 literal (no brackets) into its eight 16-bit groups. The URL parser
 * first rewrites it in canonical hex form, dotted IPv4 tails (`::ffff:10.0.0.1`) included.
 */
function ipv6Groups(address: string): number[] {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split("::") as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function classifyIpv6(address: string): BlockedHost | undefined {
  const g = ipv6Groups(address);
  const allZeroUntil = (i: number) => g.slice(0, i).every((x) => x === 0);
  if (allZeroUntil(7) && g[7] === 1) return { reason: "a loopback address (::1)" };
  if (allZeroUntil(8)) return { reason: "an unspecified address (::)" };
  // IPv4-mapped (::ffff:a.b.c.d): the IPv4 address decides.
  if (allZeroUntil(5) && g[5] === 0xffff) {
    const v4 = `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
    return classifyIpv4(v4);
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return { reason: "a unique local address (fc00::/7)" };
  if ((g[0]! & 0xffc0) === 0xfe80) return { reason: "a link-local address (fe80::/10)" };
  return undefined;
}

/**
 * Why deliveries to `hostname` (as `URL.hostname` gives it: lower case, IPv6 in
 * brackets) would be blocked, or undefined when nothing in the URL says so.
 */
export function blockedHost(hostname: string): BlockedHost | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const family = isIP(bare);
  if (family === 4) return classifyIpv4(bare);
  if (family === 6) return classifyIpv6(bare);
  return BLOCKED_NAMES.find((n) => n.matches(host));
}

/**
 * Does `hostname` match one of the `allowedHosts` patterns? A pattern is a host
 * name (exact, case-insensitive) or `*.example.com` for any name below it.
 */
export function hostAllowed(hostname: string, patterns: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return patterns.some((p) => {
    const pattern = p.toLowerCase().replace(/\.$/, "");
    if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
    return host === pattern || host === `[${pattern}]`;
  });
}
