import type { LookupAddress } from "node:dns";
import { readFileSync, rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createWebhookSender, RESPONSE_BODY_KEPT } from "../../src/service/webhooks/http-sender.ts";
import { createTestPki } from "../helpers/tls.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

let r: Receiver | null = null;
afterEach(async () => {
	await r?.close();
	r = null;
});

const headers = { "content-type": "application/json" };
const body = '{"event":"webhook.test"}';

describe("webhook HTTP sender", () => {
	it("refuses loopback, private and link-local IP literals without connecting", async () => {
		r = await startReceiver();
		const sender = createWebhookSender({ timeoutMs: 5000, allowPrivateTargets: false });
		const port = new URL(r.url).port;
		for (const host of ["127.0.0.1", "[::1]", "10.0.0.1", "169.254.169.254", "localhost"]) {
			const result = await sender.send(`http://${host}:${port}/hooks`, headers, body);
			expect(result, host).toMatchObject({ responseStatus: null, error: expect.stringMatching(/^refused: /) });
		}
		expect(r.requests).toHaveLength(0);
		sender.close();
	});

	it("resolves the name, refuses it when any address is private, and connects to the checked address", async () => {
		r = await startReceiver();
		const port = new URL(r.url).port;
		const lookups: string[] = [];
		const answers: Record<string, LookupAddress[]> = {
			"rebind.example.test": [
				{ address: "93.184.216.34", family: 4 },
				{ address: "127.0.0.1", family: 4 },
			],
			"hooks.example.test": [{ address: "127.0.0.1", family: 4 }],
		};
		const resolve = async (hostname: string) => {
			lookups.push(hostname);
			return answers[hostname] ?? [];
		};
		const strict = createWebhookSender({ timeoutMs: 5000, allowPrivateTargets: false, resolve });
		const refused = await strict.send(`http://rebind.example.test:${port}/hooks`, headers, body);
		expect(refused.error).toBe(
			"refused: rebind.example.test resolves to 127.0.0.1, a loopback, private or link-local address (allowed only with AS2_ALLOW_PRIVATE_TARGETS=1)",
		);
		expect(r.requests).toHaveLength(0);
		strict.close();
		// With private targets allowed (AS2_ALLOW_PRIVATE_TARGETS=1) the same path connects, to the address
		// our lookup returned: the request reaches 127.0.0.1 although the name is not in DNS.
		const lax = createWebhookSender({ timeoutMs: 5000, allowPrivateTargets: true, resolve });
		const sent = await lax.send(`http://hooks.example.test:${port}/hooks`, headers, body);
		expect(sent).toMatchObject({ responseStatus: 200, error: null, responseBody: "ok" });
		expect(r.requests[0]?.headers.host).toBe(`hooks.example.test:${port}`);
		expect(lookups).toEqual(["rebind.example.test", "hooks.example.test"]);
		lax.close();
	});

	it("does not follow redirects", async () => {
		r = await startReceiver(() => 302);
		const sender = createWebhookSender({ timeoutMs: 5000, allowPrivateTargets: true });
		const result = await sender.send(r.url, headers, body);
		expect(result).toMatchObject({ responseStatus: 302, error: "HTTP 302 (redirects are not followed)" });
		expect(r.requests).toHaveLength(1);
		sender.close();
	});

	it("fails an attempt that gets no response before the deadline", async () => {
		let release: () => void = () => {};
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		r = await startReceiver(async () => {
			await held;
			return 200;
		});
		const sender = createWebhookSender({ timeoutMs: 100, allowPrivateTargets: true });
		const result = await sender.send(r.url, headers, body);
		release();
		expect(result).toMatchObject({ responseStatus: null, error: "timeout: no response within 0.1 s" });
		sender.close();
	});

	it("fails on a connection error and on an untrusted TLS certificate", async () => {
		const sender = createWebhookSender({ timeoutMs: 5000, allowPrivateTargets: true });
		const closed = await startReceiver();
		const url = closed.url;
		await closed.close();
		expect((await sender.send(url, headers, body)).error).toMatch(/^ECONNREFUSED/);
		const pki = createTestPki();
		try {
			r = await startReceiver(() => 200, {
				tls: { cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) },
			});
			const result = await sender.send(r.url, headers, body);
			expect(result.responseStatus).toBeNull();
			expect(result.error).toMatch(/certificate/i);
			expect(r.requests).toHaveLength(0);
		} finally {
			rmSync(pki.dir, { recursive: true, force: true });
			sender.close();
		}
	});

	it("keeps only the start of a large response body", async () => {
		const { createServer } = await import("node:http");
		const server = createServer((_, res) => res.writeHead(500).end("x".repeat(1024 * 1024)));
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const { port } = server.address() as { port: number };
		const sender = createWebhookSender({ timeoutMs: 5000, allowPrivateTargets: true });
		try {
			const result = await sender.send(`http://127.0.0.1:${port}/`, headers, body);
			expect(result.responseStatus).toBe(500);
			expect(result.responseBody).toHaveLength(RESPONSE_BODY_KEPT);
		} finally {
			sender.close();
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		}
	});
});
