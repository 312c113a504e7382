import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { ipLiteral, isForbiddenAddress, isLocalName } from "./forbidden-addresses.ts";

/** Name resolution: every address of a host name. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** What stands between a URL from outside (a partner's, a webhook's) and a connection. */
export interface TargetGuard {
	/** AS2_ALLOW_PRIVATE_TARGETS=1: loopback, private and link-local addresses are allowed. */
	readonly allowsPrivate: boolean;
	/** Throws {@link RefusedTarget} when the URL names a forbidden address or this machine literally: no DNS asked. */
	checkHost(url: URL): void;
	/** Every address of a host name, refused when any of them is forbidden. */
	resolve(hostname: string): Promise<LookupAddress[]>;
	/**
	 * A `lookup` for `http(s).request` and `net.connect`: the socket connects only to the
	 * addresses this guard checked, so there is no second resolution that DNS rebinding could
	 * answer differently.
	 */
	lookup: LookupFunction;
}

/** A connection the guard refused; `code` EREFUSEDTARGET as a socket error. */
export class RefusedTarget extends Error {
	readonly code = "EREFUSEDTARGET";
}

const systemResolver: Resolver = (hostname) =>
	new Promise((resolve, reject) =>
		dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
	);

export const PRIVATE_TARGET_REASON =
	"a loopback, private or link-local address (allowed only with AS2_ALLOW_PRIVATE_TARGETS=1)";

/**
 * Whether a URL's host is, as written, a forbidden address or a name of this machine: the
 * check that needs no DNS (at creation, and before every connection).
 */
export function namesPrivateHost(url: URL): boolean {
	const literal = ipLiteral(url.hostname);
	return literal ? isForbiddenAddress(literal) : isLocalName(url.hostname);
}

/**
 * The one SSRF guard of every outbound connection. Without private targets allowed: an IP
 * literal (in any form the URL parser accepts — `2130706433`, `0x7f000001`, `127.1` and
 * `[::ffff:127.0.0.1]` all become `127.0.0.1`) or `localhost` is refused before connecting,
 * and a name is refused when any address it resolves to is forbidden. Redirects are never
 * followed by our HTTP clients, so a 3xx cannot lead around it.
 *
 * @example
 * const guard = createTargetGuard({ allowPrivateTargets: false });
 * guard.checkHost(url);
 * https.request(url, { lookup: guard.lookup });
 */
export function createTargetGuard(options: {
	allowPrivateTargets: boolean;
	/** `dns.lookup` (all addresses) by default; tests substitute one. */
	resolve?: Resolver | undefined;
}): TargetGuard {
	const resolveAll = options.resolve ?? systemResolver;
	const allowsPrivate = options.allowPrivateTargets;

	async function resolve(hostname: string): Promise<LookupAddress[]> {
		const literal = ipLiteral(hostname);
		if (literal) {
			refuseLiteral(literal, hostname);
			return [{ address: literal, family: literal.includes(":") ? 6 : 4 }];
		}
		if (!allowsPrivate && isLocalName(hostname)) throw new RefusedTarget(`${hostname} is ${PRIVATE_TARGET_REASON}`);
		const all = await resolveAll(hostname);
		const forbidden = allowsPrivate ? undefined : all.find((a) => isForbiddenAddress(a.address));
		if (forbidden) throw new RefusedTarget(`${hostname} resolves to ${forbidden.address}, ${PRIVATE_TARGET_REASON}`);
		if (!all[0]) throw Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" });
		return all;
	}

	function refuseLiteral(literal: string, hostname: string): void {
		if (!allowsPrivate && isForbiddenAddress(literal))
			throw new RefusedTarget(`${hostname} is ${PRIVATE_TARGET_REASON}`);
	}

	const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
		resolve(hostname).then(
			(all) => {
				const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
				const addresses = wanted ? all.filter((a) => a.family === wanted) : all;
				const first = addresses[0];
				if (!first) {
					callback(Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: "ENOTFOUND" }), "");
				} else if (lookupOptions.all) callback(null, addresses);
				else callback(null, first.address, first.family);
			},
			(error: NodeJS.ErrnoException) => callback(error, ""),
		);
	};

	return {
		allowsPrivate,
		checkHost(url) {
			if (!allowsPrivate && namesPrivateHost(url))
				throw new RefusedTarget(`${url.hostname} is ${PRIVATE_TARGET_REASON}`);
		},
		resolve,
		lookup,
	};
}
