/**
 * Inbound floods against the built server (issue #16, defects 10 and 11), on the Free plan:
 * a spoofed flood of 1,010 unsigned messages is bounded by the plan's receive limit and leaves
 * the account able to send; a compression bomb is refused as soon as its output passes the
 * plan's size, leaving no partial file, while /health keeps answering; inbound work at once is
 * bounded per tenant, the next sender told 503 with Retry-After.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { join } from "node:path";
import { compress } from "@as2kit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, healthLatency, register } from "./clients.ts";
import { HEALTH_MAX_MS } from "./hostile-input-health.ts";
import { processCpuMs } from "./server-cpu.ts";

/**
 * The tests' limit, a hang catch: their work is bounded by counts and CPU; the flood's 1,010
 * requests took over 60 s on PostgreSQL at load 15-20 on 2 cores.
 */
const HANG_MS = 300_000;
/** One request without an answer after this has hung (generous, for the same load). */
const GIVE_UP_MS = 120_000;

let server: BuiltServer;
let partnerEndpoint: Server;
let liveKey: string;
let tenantAs2Id: string;
const partnerIds: Record<string, string> = {};

beforeAll(async () => {
	// Where the account's own live send goes: a partner on loopback (the on-premise opt-in).
	partnerEndpoint = createServer((req, res) => {
		req.resume();
		req.on("end", () => res.writeHead(200).end());
	});
	await new Promise<void>((resolve) => partnerEndpoint.listen(0, "127.0.0.1", resolve));
	server = await startBuiltServer({ env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1" } });
	const user = await register(server.base);
	liveKey = await createKey(server.base, user.token, { scope: "account", environment: "live", permissions: ["*"] });
	tenantAs2Id = (await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: liveKey })).json.data.as2_id;
	const port = (partnerEndpoint.address() as AddressInfo).port;
	// Free: 5 partners. None requires signing: anyone who knows the AS2 ids can send as them.
	for (const as2Id of ["SPOOFED", "BOMBER", "HOLDER", "WAITER", "OUTBOUND"]) {
		const created = await call(server.base, "POST", "/v1/partners", {
			token: liveKey,
			body: { name: as2Id, as2_id: as2Id, url: `http://127.0.0.1:${port}/as2`, mdn_mode: "none" },
		});
		expect(created.status, created.text).toBe(201);
		partnerIds[as2Id] = created.json.data.id;
	}
});
afterAll(async () => {
	await server?.stop();
	await new Promise<void>((resolve) => partnerEndpoint.close(() => resolve()));
});

let n = 0;
function as2Headers(from: string, extra: Record<string, string> = {}): Record<string, string> {
	return {
		"as2-from": from,
		"as2-to": tenantAs2Id,
		"as2-version": "1.2",
		"message-id": `<flood-${process.pid}-${++n}@spoofer.example>`,
		"content-type": "application/edi-x12",
		...extra,
	};
}

describe("a spoofed flood", () => {
	it("of 1,010 unsigned messages is bounded by the Free plan's receive limit, and the account can still send", {
		timeout: HANG_MS,
	}, async () => {
		const statuses: number[] = [];
		const retryAfter = new Set<string | null>();
		const started = performance.now();
		let next = 0;
		await Promise.all(
			Array.from({ length: 16 }, async () => {
				while (next < 1010) {
					next++;
					const response = await fetch(`${server.base}/as2/receive`, {
						method: "POST",
						headers: as2Headers("SPOOFED"),
						body: "ISA*00*~IEA*1*000000001~",
						signal: AbortSignal.timeout(GIVE_UP_MS),
					});
					await response.text();
					statuses.push(response.status);
					if (response.status !== 200) retryAfter.add(response.headers.get("retry-after"));
				}
			}),
		);
		const seconds = (performance.now() - started) / 1000;
		const count = (status: number) => statuses.filter((s) => s === status).length;
		// Free: a burst of 50, then one a second; the flood took `seconds` (a few tokens of slack).
		// A token admits a message, or meets the tenant's bound of 5 at once and is told 503.
		const tokens = 50 + Math.ceil(seconds) + 2;
		expect(count(200)).toBeGreaterThan(0);
		expect(count(200) + count(503)).toBeLessThanOrEqual(tokens);
		expect(count(429)).toBeGreaterThanOrEqual(1010 - tokens);
		expect(count(200) + count(429) + count(503)).toBe(1010);
		expect([...retryAfter].every((value) => Number(value) >= 1)).toBe(true);

		const sent = await call(server.base, "POST", "/v1/messages", {
			token: liveKey,
			body: { partner_id: partnerIds.OUTBOUND, content_type: "application/edi-x12", payload: { content: "ISA*00*~" } },
		});
		expect(sent.status, sent.text).toBe(202);
		server.assertAlive();
	});
});

/** `size` bytes of a MIME entity that deflates about 650:1: almost all zeros, a few bytes set. */
function bombContent(size: number) {
	const head = new TextEncoder().encode("Content-Type: application/octet-stream\r\n\r\n");
	const block = new Uint8Array(64 * 1024);
	for (let i = 0; i < 12; i++) block[i * 5000] = (i * 37) & 0xff;
	return {
		size: head.byteLength + size,
		async *open() {
			yield head;
			for (let sent = 0; sent < size; sent += block.byteLength) yield block;
		},
	};
}

function filesUnder(dir: string): Array<{ path: string; size: number }> {
	if (!existsSync(dir)) return [];
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return filesUnder(path);
		// A receive job may remove a raw message while we look: what is gone is not left over.
		const size = statSync(path, { throwIfNoEntry: false })?.size;
		return size === undefined ? [] : [{ path, size }];
	});
}

describe("a compression bomb", () => {
	it("is refused as soon as its output passes the plan's 50 MB, leaves no partial file, and /health keeps answering", {
		timeout: HANG_MS,
	}, async () => {
		const compressed = await compress(bombContent(512 * 1024 * 1024), { level: 6 });
		const chunks: Uint8Array[] = [];
		for await (const chunk of compressed.open()) chunks.push(chunk);
		const bomb = Buffer.concat(chunks);
		expect((512 * 1024 * 1024) / bomb.byteLength).toBeGreaterThan(500);

		const cpuBefore = processCpuMs(server.pid);
		const answer = fetch(`${server.base}/as2/receive`, {
			method: "POST",
			headers: as2Headers("BOMBER", {
				"content-type": "application/pkcs7-mime; smime-type=compressed-data",
				"disposition-notification-to": "as2@bomber.example",
			}),
			body: bomb,
			signal: AbortSignal.timeout(GIVE_UP_MS),
		}).then(async (response) => ({ status: response.status, text: await response.text() }));
		let settled = false;
		void answer.finally(() => {
			settled = true;
		});
		const latencies: number[] = [];
		for (let i = 0; i < 400 && !settled; i++) {
			latencies.push(await healthLatency(server.base));
			await new Promise((resolve) => setTimeout(resolve, 25));
		}
		const { status, text } = await answer;
		const cpuMs = processCpuMs(server.pid) - cpuBefore;
		expect(status).toBe(200);
		expect(text).toMatch(/processed\/error: decompression-failed/);
		expect(text).toMatch(/decompressed content exceeds 52428800 bytes/);
		// 50 MB of inflation takes a fraction of a second of CPU; the whole 512 MB several times as
		// much. The server's CPU, not the wall time a loaded 2-core machine stretches (server-cpu.ts).
		expect(cpuMs).toBeLessThan(15_000);
		// No probe stalls as a blocked event loop would (the verdict of hostile-input-health.ts).
		expect(Math.max(0, ...latencies)).toBeLessThan(HEALTH_MAX_MS);
		const leftovers = filesUnder(join(server.dir, "blobs"));
		expect(leftovers.filter((f) => f.path.endsWith(".partial"))).toEqual([]);
		expect(leftovers.reduce((sum, f) => sum + f.size, 0)).toBeLessThan(1024 * 1024);
		server.assertAlive();
	});
});

/** An AS2 request whose body is held open after its first bytes: once in, it holds an inbound slot. */
async function heldRequest(from: string) {
	const body = "ISA*00*~".padEnd(1000, " ");
	const headers = Object.entries(as2Headers(from))
		.map(([name, value]) => `${name}: ${value}\r\n`)
		.join("");
	const socket: Socket = connect({ host: "127.0.0.1", port: server.port });
	await new Promise<void>((resolve, reject) => {
		socket.once("connect", resolve);
		socket.once("error", reject);
	});
	const received: Buffer[] = [];
	socket.on("data", (chunk) => received.push(chunk));
	socket.on("error", () => {});
	const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
	socket.write(
		`POST /as2/receive HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${body.length}\r\n${headers}\r\n`,
	);
	socket.write(body.slice(0, 10));
	const status = () => {
		const match = /^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(received).toString("latin1"));
		return match ? Number(match[1]) : null;
	};
	return {
		/** The status the server answered already (a 503 before the body), or null while held. */
		status,
		/** Sends the rest of the body and reads the answer (bounded). */
		async finish(): Promise<number | null> {
			if (status() === null) socket.write(body.slice(10));
			await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 30_000))]);
			socket.destroy();
			return status();
		},
	};
}

describe("inbound work at once", () => {
	it("is bounded per tenant (Free: 5): the next sender gets 503 with Retry-After, and gets through once they finish", {
		timeout: HANG_MS,
	}, async () => {
		const post = async () => {
			const response = await fetch(`${server.base}/as2/receive`, {
				method: "POST",
				headers: as2Headers("WAITER"),
				body: "ISA*00*~",
				signal: AbortSignal.timeout(GIVE_UP_MS),
			});
			await response.text();
			return response;
		};
		// Five held requests of HOLDER take the tenant's five slots. They reach the server in their
		// own time, and one that came while a probe held a slot was refused: open it again. Bounded.
		const held = await Promise.all(Array.from({ length: 5 }, () => heldRequest("HOLDER")));
		let busy: Response | null = null;
		for (let i = 0; i < 40 && busy === null; i++) {
			for (const [k, h] of held.entries()) if (h.status() === 503) held[k] = await heldRequest("HOLDER");
			const response = await post();
			if (response.status === 503) busy = response;
			else await new Promise((resolve) => setTimeout(resolve, 50));
		}
		expect(busy?.status).toBe(503);
		expect(busy?.headers.get("retry-after")).toBe("5");

		// A held request that reached the server while an earlier probe still held a slot (its
		// message is processed after its answer) was refused at once, possibly after the check
		// above: 503 is then the bound working. Every one admitted completes.
		const answers = await Promise.all(held.map((h) => h.finish()));
		for (const answer of answers) expect([200, 503]).toContain(answer);
		expect(answers).toContain(200);
		let status = 0;
		for (let i = 0; i < 40 && status !== 200; i++) {
			status = (await post()).status;
			if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
		}
		expect(status).toBe(200);
		server.assertAlive();
	});
});
