import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { As2Store } from "@as2kit/core/store";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsClient } from "../helpers/https-client.ts";
import { freePort, type Peer, startPeer } from "../helpers/peers.ts";
import { createTestPki, type TestPki } from "../helpers/tls.ts";

/**
 * A sender running as a real process (the built `npm start` entry) is killed with SIGKILL at
 * random moments while 200 messages are in flight, and restarted each time. Every message it
 * accepted must end delivered, and the receiver must hold each Message-ID exactly once.
 */
const REPO = resolve(import.meta.dirname, "../../../..");
const MESSAGES = 200;
let pki: TestPki;
let receiver: Peer;
let dir: string;
let port: number;
let child: ChildProcess | null = null;
let seed = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);

function random(): number {
	// mulberry32: reproducible kill points from the printed seed.
	seed = (seed + 0x6d2b79f5) | 0;
	let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
	t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

beforeAll(async () => {
	pki = createTestPki();
	receiver = await startPeer("Receiver", pki);
	dir = mkdtempSync(join(tmpdir(), "as2kit-crash-"));
	port = await freePort();
});
afterAll(async () => {
	if (child && child.exitCode === null) child.kill("SIGKILL");
	await receiver.server.close();
	rmSync(dir, { recursive: true, force: true });
	rmSync(pki.dir, { recursive: true, force: true });
});

const baseUrl = () => `https://127.0.0.1:${port}`;

async function startSender(): Promise<void> {
	child = spawn(process.execPath, [join(REPO, "packages/server/dist/bin/start.js")], {
		env: {
			...process.env,
			PORT: String(port),
			HOST: "127.0.0.1",
			DATABASE_URL: join(dir, "sender.sqlite"),
			BLOB_DIR: join(dir, "blobs"),
			AS2_DATA_DIR: dir,
			TLS_CERT_FILE: pki.certPath,
			TLS_KEY_FILE: pki.keyPath,
			AS2_PUBLIC_URL: baseUrl(),
			AS2_ALLOW_HTTP: "1",
			AS2_DEFAULT_PLAN: "enterprise",
			// A killed worker's jobs come back after this lease.
			AS2_JOB_LEASE_SECONDS: "2",
			AS2_SEND_RETRY_DELAYS: "0,1,1,1,1,1,1,1,1,1",
			LOG_LEVEL: "error",
		},
		stdio: ["ignore", "ignore", "pipe"],
	});
	const call = httpsClient(baseUrl(), pki.caPem);
	for (let i = 0; i < 200; i++) {
		const up = await call("GET", "/health", { timeoutMs: 1000 }).catch(() => null);
		if (up?.status === 200) return;
		await new Promise((r) => setTimeout(r, 50));
	}
	throw new Error("the sender did not start");
}

async function killSender(): Promise<void> {
	const exited = new Promise((r) => child!.once("exit", r));
	child!.kill("SIGKILL");
	await exited;
	child = null;
}

describe("crash safety", () => {
	it(`loses nothing and stores nothing twice across SIGKILLs of the sender (seed ${seed})`, async () => {
		await startSender();
		const call = httpsClient(baseUrl(), pki.caPem);
		const registered = await call("POST", "/auth/register", {
			body: {
				name: "Crashy Sender",
				email: "crash@example.com",
				password: "long password",
				password_confirmation: "long password",
			},
		});
		let token: string = registered.json.token;
		token = (
			await call("POST", "/v1/api-keys", {
				token,
				body: { name: "k", scope: "account", environment: "live", permissions: ["*"] },
			})
		).json.data.key;
		const tenant = (await call("GET", `/v1/tenants/${registered.json.tenant.id}`, { token })).json.data;
		const identity = (await call("GET", "/v1/certificates?type=identity", { token })).json.data[0];
		const partner = await call("POST", "/v1/partners", {
			token,
			body: {
				name: "Receiver",
				as2_id: receiver.as2Id,
				url: `${receiver.baseUrl}/as2/receive`,
				tls: { ca_certificate: pki.caPem },
				sign: true,
				encrypt: true,
				mdn_mode: "sync",
			},
		});
		await call("POST", `/v1/partners/${partner.json.data.id}/certificates`, {
			token,
			body: { name: "r", usage: "both", certificate: receiver.identityPem },
		});
		const back = await receiver.call("POST", "/v1/partners", {
			name: "Crashy",
			as2_id: tenant.as2_id,
			url: `${baseUrl()}/as2/receive`,
		});
		await receiver.call("POST", `/v1/partners/${back.json.data.id}/certificates`, {
			name: "s",
			usage: "both",
			certificate: identity.certificate_pem,
		});

		let accepted = 0;
		let kills = 0;
		while (accepted < MESSAGES) {
			// A burst of submissions, and a SIGKILL at a random moment inside it or just after.
			const burst = Array.from({ length: 25 }, (_, i) =>
				call("POST", "/v1/messages", {
					token,
					body: {
						partner_id: partner.json.data.id,
						content_type: "text/plain",
						payload: { content: `message ${accepted + i}` },
					},
				}).then(
					(r) => (r.status === 202 ? 1 : 0),
					() => 0,
				),
			);
			await new Promise((r) => setTimeout(r, 50 + random() * 800));
			await killSender();
			kills++;
			accepted += (await Promise.all(burst)).reduce((a, b) => a + b, 0);
			await startSender();
		}
		// Two more kills while the queue drains.
		for (let i = 0; i < 2; i++) {
			await new Promise((r) => setTimeout(r, 300 + random() * 1500));
			await killSender();
			kills++;
			await startSender();
		}

		const senderStore: As2Store = createSqliteStore({ url: join(dir, "sender.sqlite") });
		try {
			let all = await senderStore.messages.list(tenant.id, {}, { page: 1, perPage: 1000 });
			for (let i = 0; i < 1200 && all.items.some((m) => m.status !== "delivered"); i++) {
				await new Promise((r) => setTimeout(r, 100));
				all = await senderStore.messages.list(tenant.id, {}, { page: 1, perPage: 1000 });
			}
			const stuck = all.items.filter((m) => m.status !== "delivered").map((m) => `${m.id}:${m.status}:${m.errorCode}`);
			expect(stuck, `after ${kills} kills`).toEqual([]);
			// Every accepted message exists (plus any whose 202 was lost in a kill), and all were delivered.
			expect(all.total).toBeGreaterThanOrEqual(accepted);
			const inbound = await receiver.server.store.messages.list(
				receiver.tenantId,
				{ direction: "inbound" },
				{ page: 1, perPage: 1000 },
			);
			expect(inbound.total).toBe(all.total);
			const received = new Map<string, number>();
			for (const m of inbound.items) received.set(m.messageId, (received.get(m.messageId) ?? 0) + 1);
			for (const m of all.items) expect(received.get(m.messageId), m.messageId).toBe(1);
			const events = await receiver.server.store.events.list({
				accountId: receiver.accountId,
				kind: "message.received",
				limit: 100_000,
			});
			expect(events.length).toBe(all.total);
		} finally {
			await senderStore.close();
		}
	});
});
