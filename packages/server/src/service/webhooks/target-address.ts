import { BlockList, isIP } from "node:net";

/**
 * Addresses a webhook may not reach unless AS2_ALLOW_HTTP=1 (on-premise and local testing):
 * loopback, private, link-local, and the other ranges that are not public unicast, so an
 * endpoint URL cannot make the server call its own network (SSRF). IPv4-mapped IPv6
 * addresses are checked against the IPv4 rules (BlockList does that).
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
	["0.0.0.0", 8], // "this" network
	["10.0.0.0", 8], // private (RFC 1918)
	["100.64.0.0", 10], // carrier-grade NAT (RFC 6598)
	["127.0.0.0", 8], // loopback
	["169.254.0.0", 16], // link-local, cloud metadata services
	["172.16.0.0", 12], // private
	["192.0.0.0", 24], // IETF protocol assignments
	["192.168.0.0", 16], // private
	["198.18.0.0", 15], // benchmarking
	["224.0.0.0", 4], // multicast
	["240.0.0.0", 4], // reserved, broadcast
] as const) {
	FORBIDDEN.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
	["::", 128], // unspecified
	["::1", 128], // loopback
	["fc00::", 7], // unique local
	["fe80::", 10], // link-local
	["fec0::", 10], // site-local (deprecated)
	["ff00::", 8], // multicast
] as const) {
	FORBIDDEN.addSubnet(network, prefix, "ipv6");
}

/** Whether `address` (an IP literal) is loopback, private, link-local or otherwise not public. */
export function isForbiddenAddress(address: string): boolean {
	const family = isIP(address);
	if (family === 0) return false;
	return FORBIDDEN.check(address, family === 4 ? "ipv4" : "ipv6");
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
