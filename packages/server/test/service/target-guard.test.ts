import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import { createTargetGuard, RefusedTarget } from "../../src/service/transport/target-guard.ts";
import { PRIVATE_HOSTS } from "../helpers/private-hosts.ts";

const PRIVATE_URL_HOSTS = PRIVATE_HOSTS.map((p) => p.host);

/** A resolver that answers from a table and records what it was asked: no DNS is ever queried. */
function stubResolver(table: Record<string, LookupAddress[]>) {
	const asked: string[] = [];
	const resolve = async (hostname: string) => {
		asked.push(hostname);
		const answer = table[hostname];
		if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
		return answer;
	};
	return { resolve, asked };
}

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

describe("the target guard", () => {
	it.each(PRIVATE_URL_HOSTS)("refuses https://%s/ before any resolution", (host) => {
		const { resolve, asked } = stubResolver({});
		const guard = createTargetGuard({ allowPrivateTargets: false, resolve });
		expect(() => guard.checkHost(new URL(`https://${host}:4443/as2`))).toThrow(RefusedTarget);
		expect(asked).toEqual([]);
	});

	it("lets every one of them through when private targets are allowed", () => {
		const guard = createTargetGuard({ allowPrivateTargets: true, resolve: stubResolver({}).resolve });
		for (const host of PRIVATE_URL_HOSTS)
			expect(() => guard.checkHost(new URL(`https://${host}/`)), host).not.toThrow();
	});

	it("refuses a name when any address it resolves to is private, and passes a public one", async () => {
		const { resolve, asked } = stubResolver({
			"metadata.example.test": [v4("169.254.169.254")],
			"mixed.example.test": [v4("93.184.216.34"), v6("::ffff:10.0.0.7")],
			"partner.example.test": [v4("93.184.216.34"), v6("2606:2800:220:1:248:1893:25c8:1946")],
		});
		const guard = createTargetGuard({ allowPrivateTargets: false, resolve });
		await expect(guard.resolve("metadata.example.test")).rejects.toThrow(
			/^metadata\.example\.test resolves to 169\.254\.169\.254, a loopback, private or link-local address \(allowed only with AS2_ALLOW_PRIVATE_TARGETS=1\)$/,
		);
		await expect(guard.resolve("mixed.example.test")).rejects.toBeInstanceOf(RefusedTarget);
		expect(await guard.resolve("partner.example.test")).toHaveLength(2);
		expect(asked).toEqual(["metadata.example.test", "mixed.example.test", "partner.example.test"]);
	});

	it("hands the socket only the addresses it checked (the lookup hook: no second resolution to rebind)", async () => {
		const { resolve, asked } = stubResolver({
			"rebind.example.test": [v4("127.0.0.1")],
			"partner.example.test": [v4("93.184.216.34"), v6("2606:2800:220:1:248:1893:25c8:1946")],
		});
		const guard = createTargetGuard({ allowPrivateTargets: false, resolve });
		const lookup = (hostname: string, options: { all?: boolean; family?: number }) =>
			new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((done) =>
				guard.lookup(hostname, options as never, (error, address, family) => done({ error, address, family })),
			);
		const refused = await lookup("rebind.example.test", {});
		expect(refused.error).toBeInstanceOf(RefusedTarget);
		expect(refused.error?.code).toBe("EREFUSEDTARGET");
		expect(await lookup("partner.example.test", {})).toMatchObject({
			error: null,
			address: "93.184.216.34",
			family: 4,
		});
		expect(await lookup("partner.example.test", { family: 6 })).toMatchObject({
			address: "2606:2800:220:1:248:1893:25c8:1946",
			family: 6,
		});
		expect((await lookup("partner.example.test", { all: true })).address).toHaveLength(2);
		expect(asked).toEqual([
			"rebind.example.test",
			"partner.example.test",
			"partner.example.test",
			"partner.example.test",
		]);
	});

	it("answers a refused literal and an unknown name differently", async () => {
		const guard = createTargetGuard({ allowPrivateTargets: false, resolve: stubResolver({}).resolve });
		await expect(guard.resolve("127.0.0.1")).rejects.toBeInstanceOf(RefusedTarget);
		await expect(guard.resolve("nowhere.example.test")).rejects.toMatchObject({ code: "ENOTFOUND" });
		expect(await guard.resolve("93.184.216.34")).toEqual([v4("93.184.216.34")]);
	});
});
