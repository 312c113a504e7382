/**
 * Partner URLs and SSRF against the built server (issue #16, defect 4). Every spelling of a
 * private host is refused at POST and PATCH of partners, master partners and webhook endpoints
 * (AS2_ALLOW_HTTP=1 does not change that); partners saved while AS2_ALLOW_PRIVATE_TARGETS=1,
 * on a restarted deployment without it, are refused at /test, /validate and live sends. The
 * loopback spellings point at a listener that counts connections: it must count none. No
 * request of this file, and nothing it makes the server do, reaches a non-loopback address:
 * those spellings are only ever refused at creation.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRIVATE_HOSTS } from "../../packages/server/test/helpers/private-hosts.ts";
import { createTestDatabase, type TestDatabase } from "../pg/databases.ts";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, curl, type Registered, register } from "./clients.ts";

let listener: Server;
let connections = 0;
let port: number;
beforeAll(async () => {
	listener = createServer((socket) => {
		connections++;
		socket.destroy();
	});
	await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
	port = (listener.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

const urlsOf = (host: string) => [`https://${host}:${port}/as2`, `http://${host}:${port}/as2`];

describe("a deployment without AS2_ALLOW_PRIVATE_TARGETS (with AS2_ALLOW_HTTP=1)", () => {
	let server: BuiltServer;
	let user: Registered;
	let publicPartner: string;
	beforeAll(async () => {
		server = await startBuiltServer({ env: { AS2_ALLOW_HTTP: "1", AS2_DEFAULT_PLAN: "enterprise" } });
		user = await register(server.base);
		const created = await call(server.base, "POST", "/v1/partners", {
			token: user.token,
			body: { name: "Public", as2_id: "PUBLIC", url: "https://as2.partner.example/as2" },
		});
		expect(created.status, created.text).toBe(201);
		publicPartner = created.json.data.id;
	});
	afterAll(() => server.stop());

	it("refuses every spelling of a private host at POST and PATCH of partners, master partners and webhooks", async () => {
		let requests = 0;
		for (const { host, loopback } of PRIVATE_HOSTS) {
			for (const url of urlsOf(host)) {
				const attempts = [
					call(server.base, "POST", "/v1/partners", {
						token: user.token,
						body: { name: "Internal", as2_id: "INTERNAL", url },
					}),
					call(server.base, "PATCH", `/v1/partners/${publicPartner}`, { token: user.token, body: { url } }),
					call(server.base, "POST", `/v1/accounts/${user.accountId}/partners`, {
						token: user.token,
						body: { name: "Internal", as2_id: "INTERNAL", url },
					}),
				];
				// A webhook endpoint that were wrongly saved would get this account's events at once:
				// only loopback spellings, so that even a regression can reach no one but our listener.
				if (loopback) {
					attempts.push(
						call(server.base, "POST", "/v1/webhook-endpoints", { token: user.token, body: { url, events: ["*"] } }),
					);
				}
				for (const response of await Promise.all(attempts)) {
					requests++;
					expect(response.status, `${url}: ${response.text}`).toBe(422);
					expect(response.json.error.code).toBe("INVALID_ENDPOINT_URL");
					expect(response.json.errors.url[0]).toMatch(/AS2_ALLOW_PRIVATE_TARGETS=1/);
				}
			}
		}
		const loopbacks = PRIVATE_HOSTS.filter((p) => p.loopback).length;
		expect(requests).toBe(PRIVATE_HOSTS.length * 2 * 3 + loopbacks * 2);
		// The partner kept its URL, and nothing was connected to.
		const partner = await call(server.base, "GET", `/v1/partners/${publicPartner}`, { token: user.token });
		expect(partner.json.data.url).toBe("https://as2.partner.example/as2");
		expect(connections).toBe(0);
		server.assertAlive();
	});

	it("refuses it from curl's form-encoded body too", async () => {
		const result = await curl([
			"-w",
			"\n%{http_code}",
			"-H",
			`Authorization: Bearer ${user.token}`,
			"--data-urlencode",
			"name=Scanner",
			"--data-urlencode",
			"as2_id=SCANNER",
			"--data-urlencode",
			`url=https://2130706433:${port}/as2`,
			`${server.base}/v1/partners`,
		]);
		expect(result.stdout.trim().split("\n").at(-1)).toBe("422");
		expect(result.stdout).toMatch(/INVALID_ENDPOINT_URL/);
		expect(connections).toBe(0);
	});
});

describe("partners saved while private targets were allowed, after a restart without it", () => {
	let dir: string;
	let database: TestDatabase | null = null;
	let token: string;
	let liveKey: string;
	const partners: Array<{ id: string; host: string }> = [];
	let server: BuiltServer;
	const env = () => ({
		DATABASE_URL: database?.url ?? join(dir, "as2.sqlite"),
		BLOB_DIR: join(dir, "blobs"),
		AS2_DATA_DIR: dir,
		AS2_DEFAULT_PLAN: "professional",
		AS2_SEND_RETRY_DELAYS: "0,1,1",
	});

	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), "as2kit-ssrf-"));
		if (process.env.AS2KIT_TEST_STORE === "pg") database = await createTestDatabase();
		const before = await startBuiltServer({ env: { ...env(), AS2_ALLOW_PRIVATE_TARGETS: "1" } });
		try {
			const user = await register(before.base);
			token = user.token;
			liveKey = await createKey(before.base, token, { scope: "account", environment: "live", permissions: ["*"] });
			for (const [i, { host }] of PRIVATE_HOSTS.filter((p) => p.loopback).entries()) {
				const created = await call(before.base, "POST", "/v1/partners", {
					token,
					body: { name: `Loopback ${i}`, as2_id: `LOOPBACK${i}`, url: `https://${host}:${port}/as2`, mdn_mode: "none" },
				});
				expect(created.status, `${host}: ${created.text}`).toBe(201);
				partners.push({ id: created.json.data.id, host });
			}
		} finally {
			await before.stop();
		}
		server = await startBuiltServer({ env: { ...env(), AS2_ALLOW_HTTP: "1" } });
	});
	afterAll(async () => {
		await server?.stop();
		await database?.drop();
		rmSync(dir, { recursive: true, force: true });
	});

	it("refuses them in every partner test and in validation, connecting to nothing", async () => {
		for (const { id, host } of partners) {
			for (const test_type of ["ping", "mdn", "full"]) {
				const tested = await call(server.base, "POST", `/v1/partners/${id}/test`, {
					token: liveKey,
					body: { test_type },
				});
				expect(tested.status, `${host} ${test_type}: ${tested.text}`).toBe(200);
				expect(tested.json.success).toBe(false);
				const failure = tested.json.data.timeline.find((s: { status: string }) => s.status === "failure");
				expect(JSON.stringify(failure), `${host} ${test_type}`).toMatch(/refused: .*AS2_ALLOW_PRIVATE_TARGETS=1/);
			}
			const validated = await call(server.base, "POST", `/v1/partners/${id}/validate`, { token });
			const reachable = validated.json.checks.find((c: { name: string }) => c.name === "endpoint_accessibility");
			expect(reachable, host).toMatchObject({ status: "fail", issue: "UNREACHABLE_ENDPOINT" });
		}
		expect(connections).toBe(0);
		server.assertAlive();
	});

	it("fails a live send at once with INVALID_ENDPOINT_URL, connecting to nothing", async () => {
		const sent = await call(server.base, "POST", "/v1/messages", {
			token: liveKey,
			body: { partner_id: partners[0]!.id, content_type: "application/edi-x12", payload: { content: "ISA*00*~" } },
		});
		expect(sent.status, sent.text).toBe(202);
		let message: { status: string; error_code: string | null; attempts: number } | null = null;
		for (let i = 0; i < 150 && message?.status !== "failed"; i++) {
			await new Promise((resolve) => setTimeout(resolve, 100));
			message = (await call(server.base, "GET", `/v1/messages/${sent.json.data.id}`, { token: liveKey })).json.data;
		}
		expect(message).toMatchObject({ status: "failed", error_code: "INVALID_ENDPOINT_URL", attempts: 1 });
		expect(connections).toBe(0);
	});
});
