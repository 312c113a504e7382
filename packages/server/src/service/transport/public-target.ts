import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { fieldError } from "../validation-error.ts";

/** Loopback, private, link-local and other non-public ranges (RFC 6890). */
const PRIVATE = new BlockList();
for (const [address, prefix] of [
	["0.0.0.0", 8],
	["10.0.0.0", 8],
	["100.64.0.0", 10],
	["127.0.0.0", 8],
	["169.254.0.0", 16],
	["172.16.0.0", 12],
	["192.168.0.0", 16],
	["198.18.0.0", 15],
	["224.0.0.0", 4],
	["240.0.0.0", 4],
] as const) {
	PRIVATE.addSubnet(address, prefix, "ipv4");
}
for (const [address, prefix] of [
	["::", 128],
	["::1", 128],
	["fc00::", 7],
	["fe80::", 10],
	["ff00::", 8],
	["::ffff:0:0", 96],
] as const) {
	PRIVATE.addSubnet(address, prefix, "ipv6");
}

export function isPrivateAddress(address: string): boolean {
	const family = isIP(address);
	return family !== 0 && PRIVATE.check(address, family === 6 ? "ipv6" : "ipv4");
}

/**
 * Refuses a URL that leads to this deployment's own network (SSRF): http(s) only, and every
 * address its host resolves to must be public — unless AS2_ALLOW_HTTP=1 (on-premise, tests).
 */
export async function checkPublicTarget(url: string, allowPrivate: boolean): Promise<void> {
	const target = new URL(url);
	if (target.protocol !== "https:" && !(allowPrivate && target.protocol === "http:")) {
		throw fieldError("url", "must be https");
	}
	if (allowPrivate) return;
	const host = target.hostname.replace(/^\[|\]$/g, "");
	const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
	if (addresses.some(isPrivateAddress)) throw fieldError("url", "leads to a private or loopback address");
}
