/**
 * Hosts the service never connects to (spec 2: "Target hosts resolving to private
 * or non-public addresses are never sent to", `blocked_address`; spec 1: a broker
 * the API will not connect to, `broker_not_allowed`). One table, read by the
 * emulator (deliveries, test pings, verification, broker sources), the provider's
 * preview checks and the policy pack.
 *
 * Decided from the host as written, never from DNS:
 * - IP literals in every notation a resolver accepts: the WHATWG URL parser turns
 *   `0x7f.1`, `2130706433`, `0177.0.0.1` and `127.1` into `127.0.0.1`, and any IPv6
 *   form into its canonical text;
 * - IPv6 forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`, compatible
 *   `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by that IPv4
 *   address;
 * - names that resolve, if at all, only to local addresses (`localhost`, `*.local`,
 *   `*.internal`, `*.localdomain`).
 *
 * The ranges are IANA's special-purpose registries, entries not globally reachable.
 */
import { BlockList, isIP } from "node:net";

export type NonPublicKind = "loopback" | "private" | "link-local" | "unspecified" | "shared" | "reserved" | "documentation" | "benchmarking" | "multicast" | "local name";

export interface NonPublicHost {
  kind: NonPublicKind;
  /** For messages, e.g. "a loopback address (127.0.0.0/8)". */
  reason: string;
}

type Range = readonly [cidr: string, kind: NonPublicKind, reason: string];

const IPV4_RANGES: readonly Range[] = [
  ["0.0.0.0/8", "unspecified", "an unspecified address (0.0.0.0/8)"],
  ["10.0.0.0/8", "private", "a private address (10.0.0.0/8)"],
  ["100.64.0.0/10", "shared", "a shared (carrier-grade NAT) address (100.64.0.0/10)"],
  ["127.0.0.0/8", "loopback", "a loopback address (127.0.0.0/8)"],
  ["169.254.0.0/16", "link-local", "a link-local address (169.254.0.0/16)"],
  ["172.16.0.0/12", "private", "a private address (172.16.0.0/12)"],
  ["192.0.0.0/24", "reserved", "an IETF protocol address (192.0.0.0/24)"],
  ["192.0.2.0/24", "documentation", "a documentation address (192.0.2.0/24)"],
  ["192.88.99.0/24", "reserved", "a 6to4 relay address (192.88.99.0/24)"],
  ["192.168.0.0/16", "private", "a private address (192.168.0.0/16)"],
  ["198.18.0.0/15", "benchmarking", "a benchmarking address (198.18.0.0/15)"],
  ["198.51.100.0/24", "documentation", "a documentation address (198.51.100.0/24)"],
  ["203.0.113.0/24", "documentation", "a documentation address (203.0.113.0/24)"],
  ["224.0.0.0/4", "multicast", "a multicast address (224.0.0.0/4)"],
  ["240.0.0.0/4", "reserved", "a reserved address (240.0.0.0/4)"],
];

/** IPv6 ranges judged as such; the IPv4-carrying forms are handled before these. */
const IPV6_RANGES: readonly Range[] = [
  ["::/128", "unspecified", "an unspecified address (::)"],
  ["::1/128", "loopback", "a loopback address (::1)"],
  ["64:ff9b:1::/48", "private", "a local-use NAT64 address (64:ff9b:1::/48)"],
  ["100::/64", "reserved", "a discard-only address (100::/64)"],
  ["2001::/23", "reserved", "an IETF protocol address (2001::/23)"],
  ["2001:db8::/32", "documentation", "a documentation address (2001:db8::/32)"],
  ["3fff::/20", "documentation", "a documentation address (3fff::/20)"],
  ["5f00::/16", "reserved", "a segment routing address (5f00::/16)"],
  ["fc00::/7", "private", "a unique local address (fc00::/7)"],
  ["fe80::/10", "link-local", "a link-local address (fe80::/10)"],
  ["fec0::/10", "private", "a site-local address (fec0::/10)"],
  ["ff00::/8", "multicast", "a multicast address (ff00::/8)"],
];

/**
 * Inside 2001::/23 these are global (IANA: "Globally Reachable: True"): Teredo,
 * PCP and TURN anycast, AMT, the AS112 and ORCHIDv2 blocks.
 */
const IPV6_GLOBAL_EXCEPTIONS = ["2001::/32", "2001:1::1/128", "2001:1::2/128", "2001:1::3/128", "2001:3::/32", "2001:4:112::/48", "2001:20::/28", "2001:30::/28"];

function blockList(cidrs: readonly string[], family: "ipv4" | "ipv6"): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, prefix] = cidr.split("/") as [string, string];
    list.addSubnet(net, Number(prefix), family);
  }
  return list;
}

const compile = (ranges: readonly Range[], family: "ipv4" | "ipv6") => ranges.map(([cidr, kind, reason]) => ({ list: blockList([cidr], family), kind, reason }));
const V4 = compile(IPV4_RANGES, "ipv4");
const V6 = compile(IPV6_RANGES, "ipv6");
const V6_GLOBAL = blockList(IPV6_GLOBAL_EXCEPTIONS, "ipv6");

const LOCAL_NAMES: readonly { suffix: string; reason: string; kind: NonPublicKind }[] = [
  { suffix: "localhost", kind: "loopback", reason: "a loopback name (localhost, *.localhost)" },
  { suffix: "localdomain", kind: "local name", reason: "a local-only name (*.localdomain)" },
  { suffix: "internal", kind: "local name", reason: "an internal-only name (*.internal)" },
  { suffix: "local", kind: "local name", reason: "a link-local multicast DNS name (*.local)" },
];

/**
 * The host in canonical form: lower case, no trailing dot, no IPv6 brackets or zone,
 * IPv4 in dotted decimal whatever notation it was written in. Undefined when it is no valid
 * host at all (other checks report that).
 */
export function canonicalHost(host: string): string | undefined {
  // An IPv6 zone (`fe80::1%eth0`) only names the interface: the address decides.
  // Every trailing dot goes before parsing (a resolver drops them all, and `127.0.0.1..` is
  // no IPv4 literal to a URL parser until they are gone), so that the result is canonical:
  // canonicalHost(canonicalHost(h)) === canonicalHost(h).
  const bare = host
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/^([0-9a-f:.]*:[0-9a-f:.]*)%.*$/i, "$1")
    .replace(/\.+$/, "");
  try {
    const parsed = new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname;
    return parsed.replace(/^\[(.*)\]$/, "$1").replace(/\.+$/, "");
  } catch {
    return undefined;
  }
}

/** The eight 16-bit groups of a canonical IPv6 literal. */
function ipv6Groups(address: string): number[] {
  const [head, tail] = address.split("::") as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const dotted = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address stands for (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const zeroUntil = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUntil(5) && g[5] === 0xffff) return dotted(g[6]!, g[7]!); // ::ffff:0:0/96
  if (zeroUntil(6) && (g[6] !== 0 || g[7]! > 1)) return dotted(g[6]!, g[7]!); // ::/96 minus :: and ::1
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return dotted(g[6]!, g[7]!); // 64:ff9b::/96
  if (g[0] === 0x2002) return dotted(g[1]!, g[2]!); // 2002::/16
  return undefined;
}

function ipv4NonPublic(address: string): NonPublicHost | undefined {
  const hit = V4.find((r) => r.list.check(address, "ipv4"));
  return hit && { kind: hit.kind, reason: hit.reason };
}

/**
 * Why the service would never connect to `host` (a URL's host, brackets allowed, or a
 * bare host such as `broker_host`), or undefined when nothing in the host says so.
 */
export function nonPublicHost(host: string): NonPublicHost | undefined {
  const h = canonicalHost(host);
  if (h === undefined) return undefined;
  const family = isIP(h);
  if (family === 4) return ipv4NonPublic(h);
  if (family === 6) {
    const v4 = embeddedIpv4(h);
    if (v4 !== undefined) return ipv4NonPublic(v4);
    if (V6_GLOBAL.check(h, "ipv6")) return undefined;
    const hit = V6.find((r) => r.list.check(h, "ipv6"));
    return hit && { kind: hit.kind, reason: hit.reason };
  }
  const name = LOCAL_NAMES.find((n) => h === n.suffix || h.endsWith(`.${n.suffix}`));
  return name && { kind: name.kind, reason: name.reason };
}

/**
 * A host on this machine's loopback interface (127.0.0.0/8, `::1`, `::ffff:127.x.y.z`,
 * localhost): what the emulator's `--allow-loopback-targets` really connects to. The
 * IPv4-carrying IPv6 forms that route elsewhere (NAT64, 6to4) are not: they leave the machine.
 */
export function isLoopbackHost(host: string): boolean {
  const h = canonicalHost(host);
  if (h === undefined || nonPublicHost(h)?.kind !== "loopback") return false;
  return isIP(h) !== 6 || h === "::1" || h.startsWith("::ffff:");
}
