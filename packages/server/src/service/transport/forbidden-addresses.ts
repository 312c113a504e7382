import { BlockList, isIP } from "node:net";

/**
 * Addresses no outbound connection (partner transmissions and tests, async MDNs, webhooks)
 * may reach unless private targets are allowed (AS2_ALLOW_PRIVATE_TARGETS=1): everything in
 * the IANA special-purpose registries (RFC 6890) that can lead into a network of ours rather
 * than the Internet, so that a URL cannot make the server call its own network or a cloud
 * metadata service (SSRF). Documentation ranges (RFC 5737, RFC 3849) are routed nowhere and
 * stay allowed.
 * IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are checked against the IPv4 rules
 * (BlockList does that); NAT64 and 6to4 addresses by the IPv4 address they carry.
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
	["0.0.0.0", 8], // "this" network: 0.0.0.0 connects to this host
	["10.0.0.0", 8], // private (RFC 1918)
	["100.64.0.0", 10], // carrier-grade NAT (RFC 6598)
	["127.0.0.0", 8], // loopback
	["169.254.0.0", 16], // link-local, cloud metadata services
	["172.16.0.0", 12], // private
	["192.0.0.0", 24], // IETF protocol assignments
	["192.168.0.0", 16], // private
	["198.18.0.0", 15], // benchmarking
	["224.0.0.0", 4], // multicast
	["240.0.0.0", 4], // reserved, and 255.255.255.255 broadcast
] as const) {
	FORBIDDEN.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
	["::", 96], // unspecified, loopback, IPv4-compatible (deprecated, RFC 4291 §2.5.5.1)
	["64:ff9b:1::", 48], // local-use NAT64 (RFC 8215)
	["100::", 64], // discard-only (RFC 6666)
	["2001:2::", 48], // benchmarking
	["fc00::", 7], // unique local
	["fe80::", 10], // link-local
	["fec0::", 10], // site-local (deprecated)
	["ff00::", 8], // multicast
] as const) {
	FORBIDDEN.addSubnet(network, prefix, "ipv6");
}

/** Whether `address` (an IP literal) is loopback, private, link-local or otherwise not public unicast. */
export function isForbiddenAddress(address: string): boolean {
	const family = isIP(address);
	if (family === 0) return false;
	if (family === 4) return FORBIDDEN.check(address, "ipv4");
	if (FORBIDDEN.check(address, "ipv6")) return true;
	const carried = embeddedIpv4(address);
	return carried !== null && FORBIDDEN.check(carried, "ipv4");
}

/** A URL's host as an IP literal, without IPv6 brackets; null for a name. */
export function ipLiteral(hostname: string): string | null {
	const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
	return isIP(bare) ? bare : null;
}

/** Names that always mean this machine (RFC 6761 §6.3), refused without asking DNS. */
export function isLocalName(hostname: string): boolean {
	const name = hostname.toLowerCase().replace(/\.$/, "");
	return name === "localhost" || name.endsWith(".localhost");
}

/** The IPv4 address inside a NAT64 (64:ff9b::/96, RFC 6052) or 6to4 (2002::/16, RFC 3056) address. */
function embeddedIpv4(address: string): string | null {
	const groups = ipv6Groups(address);
	if (!groups) return null;
	const isNat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
	if (isNat64) return dotted(groups[6]!, groups[7]!);
	if (groups[0] === 0x2002) return dotted(groups[1]!, groups[2]!);
	return null;
}

/** The eight 16-bit groups of an IPv6 literal (`::` expanded, a trailing dotted quad converted). */
function ipv6Groups(address: string): number[] | null {
	let text = address.toLowerCase();
	const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
	if (quad) {
		const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
		text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
	}
	const [head, tail] = text.split("::") as [string, string | undefined];
	const parse = (part: string) => (part ? part.split(":").map((g) => Number.parseInt(g, 16)) : []);
	const left = parse(head);
	const right = tail === undefined ? [] : parse(tail);
	const missing = 8 - left.length - right.length;
	if (missing < 0 || (tail === undefined && missing !== 0)) return null;
	return [...left, ...new Array<number>(missing).fill(0), ...right];
}

function dotted(high: number, low: number): string {
	return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}
