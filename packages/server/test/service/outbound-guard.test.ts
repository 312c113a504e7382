import type { LookupAddress } from "node:dns";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { probeEndpoint } from "../../src/service/partners/probe-endpoint.ts";
import { postAs2 } from "../../src/service/transport/post-as2.ts";
import { createTargetGuard } from "../../src/service/transport/target-guard.ts";

/**
 * The SSRF guard where connections are made (issue #16, defect 4): partner transmissions and
 * async MDNs (postAs2) and partner tests (probeEndpoint). Every target here is on loopback, and a
 * listener counts the connections it gets: a refusal must leave it at zero.
 */
let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
	await Promise.all(closers.map((close) => close()));
	closers = [];
});

async function countingListener(): Promise<{ port: number; connections: () => number }> {
	let count = 0;
	const server = createServer((socket) => {
		count++;
		socket.destroy();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	closers.push(() => new Promise((resolve) => server.close(() => resolve())));
	return { port: (server.address() as AddressInfo).port, connections: () => count };
}

const loopbackResolver = (names: string[]) => async (hostname: string) => {
	names.push(hostname);
	return [{ address: "127.0.0.1", family: 4 } satisfies LookupAddress];
};

const body = {
	size: 2,
	async *open() {
		yield new TextEncoder().encode("hi");
	},
};

describe("outbound connections pass the target guard", () => {
	it("postAs2 refuses a private literal and a name that resolves to one, connecting to nothing", async () => {
		const target = await countingListener();
		const names: string[] = [];
		const guard = createTargetGuard({ allowPrivateTargets: false, resolve: loopbackResolver(names) });
		for (const host of ["127.0.0.1", "2130706433", "[::ffff:127.0.0.1]", "localhost", "partner.example.test"]) {
			const posting = postAs2({
				url: `https://${host}:${target.port}/as2`,
				guard,
				headers: [["content-type", "text/plain"]],
				body,
				idleTimeoutMs: 5_000,
				totalTimeoutMs: 5_000,
			});
			await expect(posting, host).rejects.toMatchObject({
				code: "INVALID_ENDPOINT_URL",
				details: { transient: false },
				message: expect.stringMatching(/^refused: .*AS2_ALLOW_PRIVATE_TARGETS=1/),
			});
		}
		// Only the name was resolved (through the guard's own lookup), and nothing was connected to.
		expect(names).toEqual(["partner.example.test"]);
		expect(target.connections()).toBe(0);
	});

	it("postAs2 does not follow a redirect, so a 3xx cannot lead around the guard", async () => {
		const elsewhere = await countingListener();
		const redirecting = createHttpServer((req, res) => {
			req.resume();
			req.on("end", () => res.writeHead(307, { location: `http://127.0.0.1:${elsewhere.port}/as2` }).end("moved"));
		});
		await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
		closers.push(() => new Promise((resolve) => redirecting.close(() => resolve())));
		const result = await postAs2({
			url: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/as2`,
			guard: createTargetGuard({ allowPrivateTargets: true }),
			headers: [["content-type", "text/plain"]],
			body,
			idleTimeoutMs: 5_000,
			totalTimeoutMs: 5_000,
		});
		expect(result.status).toBe(307);
		expect(elsewhere.connections()).toBe(0);
	});

	it("a partner test's probe refuses in its DNS step and connects to nothing", async () => {
		const target = await countingListener();
		const names: string[] = [];
		const guard = createTargetGuard({ allowPrivateTargets: false, resolve: loopbackResolver(names) });
		for (const host of ["127.1", "0x7f000001", "[::1]", "0.0.0.0", "partner.example.test"]) {
			const probe = await probeEndpoint(`https://${host}:${target.port}/as2`, { timeoutMs: 5_000, guard });
			expect(probe, host).toMatchObject({ reachable: false, error: expect.stringMatching(/^refused: /) });
			expect(probe.steps.map((s) => [s.step, s.status])).toEqual([["dns", "failure"]]);
		}
		expect(names).toEqual(["partner.example.test"]);
		expect(target.connections()).toBe(0);
		// Allowed (on-premise), the same probe connects, to the address the guard resolved.
		const allowed = createTargetGuard({ allowPrivateTargets: true, resolve: loopbackResolver(names) });
		const probe = await probeEndpoint(`http://partner.example.test:${target.port}/as2`, {
			timeoutMs: 5_000,
			guard: allowed,
		});
		expect(probe.reachable).toBe(true);
		expect(target.connections()).toBe(1);
	});
});
