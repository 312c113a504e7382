import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { As2Store } from "@as2kit/core/store";
import { createSqliteStore } from "@as2kit/storage-sqlite";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsClient } from "../helpers/https-client.ts";
import { freePort, type Peer, startPeer } from "../helpers/peers.ts";
import { createTestPki, type TestPki } from "../helpers/tls.ts";

/**
 * A sender running as a real process (the built `npm start` entry) is killed with SIGKILL at
 * random moments while 200 messages are in flight, and restarted each time. Every message it
 * accepted must end delivered, and the receiver must hold each Message-ID exactly once.
 * Each kill records what it interrupted (from the sender's database as the kill left it), and
 * the test fails unless kills fell mid-transmission, one of them after the receiver had
 * stored a message the sender had not yet recorded as delivered.
 */
const REPO = resolve(import.meta.dirname, "../../../..");
const MESSAGES = 200;
let pki: TestPki;
let receiver: Peer;
let dir: string;
let port: number;
let child: ChildProcess | null = null;
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 100_000);
let seed = SEED;

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
			// The receiver is on loopback: the on-premise opt-in.
			AS2_ALLOW_PRIVATE_TARGETS: "1",
			AS2_DEFAULT_PLAN: "enterprise",
			// A killed worker's jobs come back after this lease.
			AS2_JOB_LEASE_SECONDS: "2",
			AS2_SEND_RETRY_DELAYS: "0,1,1,1,1,1,1,1,1,1",
			LOG_LEVEL: "error",
		},
		stdio: ["ignore", "ignore", "pipe"],
	});
	const call = httpsClient(baseUrl(), pki.caPem);
	// Bounded generously: a loaded machine starts a process slowly.
	for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
		const up = await call("GET", "/health", { timeoutMs: 1000 }).catch(() => null);
		if (up?.status === 200) return;
		await new Promise((r) => setTimeout(r, 50));
	}
	throw new Error("the sender did not start");
}

/**
 * The Message-IDs the sender process `pid` is transmitting: claimed by its worker (jobs are
 * locked by `host:pid:random`) and not yet settled.
 */
function transmitting(db: Database.Database, pid: number): string[] {
	const rows = db
		.prepare(
			`select m.message_id from jobs j join messages m on m.id = json_extract(j.payload, '$.messageId')
			where m.status = 'processing' and j.locked_by like ?`,
		)
		.all(`%:${pid}:%`) as { message_id: string }[];
	return rows.map((row) => row.message_id);
}

function openSenderDb(): Database.Database {
	return new Database(join(dir, "sender.sqlite"), { readonly: true, fileMustExist: true });
}

/** Polls the sender's database until it is transmitting a message (or `limitMs` passes). */
async function untilTransmitting(limitMs: number): Promise<void> {
	const db = openSenderDb();
	try {
		for (const end = Date.now() + limitMs; Date.now() < end && transmitting(db, child!.pid!).length === 0; ) {
			await new Promise((r) => setTimeout(r, 2));
		}
	} finally {
		db.close();
	}
}

/** What one SIGKILL interrupted, read from the sender's database as the kill left it. */
interface Interrupted {
	/** Messages being transmitted (claimed, not yet settled). */
	inFlight: number;
	/** Of those, how many the receiver had already stored: the kill fell between its answer and our bookkeeping. */
	receivedAlready: number;
}

async function killSender(): Promise<Interrupted> {
	const exited = new Promise((r) => child!.once("exit", r));
	const pid = child!.pid!;
	child!.kill("SIGKILL");
	await exited;
	child = null;
	const db = openSenderDb();
	try {
		const inFlight = transmitting(db, pid);
		let receivedAlready = 0;
		for (const messageId of inFlight) {
			const stored = await receiver.server.store.messages.findByMessageId(receiver.tenantId, messageId, {
				direction: "inbound",
			});
			if (stored) receivedAlready++;
		}
		return { inFlight: inFlight.length, receivedAlready };
	} finally {
		db.close();
	}
}

describe("crash safety", () => {
	it(`loses nothing and stores nothing twice across SIGKILLs of the sender (seed ${SEED})`, async () => {
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
		const kills: Interrupted[] = [];
		for (let round = 0; accepted < MESSAGES; round++) {
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
			// Every other round lets the whole burst be accepted first; the others kill while
			// submissions are still arriving. Either way the kill falls at a random point of a
			// transmission: once the sender has a message in flight, 0–40 ms later.
			if (round % 2 === 1) accepted += (await Promise.all(burst)).reduce((a, b) => a + b, 0);
			await untilTransmitting(15_000);
			await new Promise((r) => setTimeout(r, random() * 40));
			kills.push(await killSender());
			if (round % 2 === 0) accepted += (await Promise.all(burst)).reduce((a, b) => a + b, 0);
			await startSender();
		}
		// More kills while the queue drains, at moments not tied to a transmission: at least
		// two, and until one has fallen between the receiver storing a message and the sender
		// recording it, where the resend must be recognised as a duplicate (bounded: the queue
		// may drain first).
		for (let i = 0; i < 12 && (i < 2 || !kills.some((k) => k.receivedAlready > 0)); i++) {
			await new Promise((r) => setTimeout(r, 100 + random() * (i < 2 ? 1500 : 300)));
			kills.push(await killSender());
			await startSender();
		}
		const summary = `seed ${SEED}, kills (in flight/already received): ${kills.map((k) => `${k.inFlight}/${k.receivedAlready}`).join(" ")}`;
		// The kills must have interrupted transmissions, or the test proves nothing.
		expect(
			kills.filter((k) => k.inFlight > 0).length,
			`kills that found messages in flight (${summary})`,
		).toBeGreaterThanOrEqual(kills.length / 3);
		expect(
			kills.some((k) => k.receivedAlready > 0),
			`a kill fell after the receiver stored a message (${summary})`,
		).toBe(true);

		const senderStore: As2Store = createSqliteStore({ url: join(dir, "sender.sqlite") });
		try {
			let all = await senderStore.messages.list(tenant.id, {}, { page: 1, perPage: 1000 });
			for (let i = 0; i < 1200 && all.items.some((m) => m.status !== "delivered"); i++) {
				await new Promise((r) => setTimeout(r, 100));
				all = await senderStore.messages.list(tenant.id, {}, { page: 1, perPage: 1000 });
			}
			const stuck = all.items.filter((m) => m.status !== "delivered").map((m) => `${m.id}:${m.status}:${m.errorCode}`);
			expect(stuck, summary).toEqual([]);
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
		// Bounded generously: restarts and the drain take minutes on a loaded machine.
	}, 300_000);
});
