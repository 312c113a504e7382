/**
 * Issue #16, defect 12: what the built server leaves on disk is for its own user alone — the
 * database (SQLite, with its -wal and -shm), payload blobs and the generated master key are
 * 0600, the directories it creates 0700 — and it holds no file open once it is done with it
 * (a refused inbound message's raw blob, deleted, must not live on as an open descriptor).
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, rawRequest } from "./clients.ts";
import { messageForm, requestHead, setUpUploadWorld, type UploadWorld } from "./upload-requests.ts";

const onSqlite = process.env.AS2KIT_TEST_STORE !== "pg";
let server: BuiltServer;
let world: UploadWorld;
/** Everything the server keeps, in a directory it has to create itself (relative to its cwd, the harness's directory). */
let data: string;

beforeAll(async () => {
	server = await startBuiltServer({
		env: {
			...(onSqlite ? { DATABASE_URL: "./data/db/as2.sqlite" } : {}),
			BLOB_DIR: "./data/blobs",
			AS2_DATA_DIR: "./data",
			// Unset: the server generates its master key into AS2_DATA_DIR.
			AS2_MASTER_KEY: "",
		},
	});
	data = join(server.dir, "data");
	world = await setUpUploadWorld(server);
});
afterAll(() => server.stop());

/** Every file and directory under `root`, with its permission bits. */
function modesUnder(root: string): { files: Record<string, number>; directories: Record<string, number> } {
	const files: Record<string, number> = {};
	const directories: Record<string, number> = { ".": statSync(root).mode & 0o777 };
	for (const path of readdirSync(root, { recursive: true, encoding: "utf8" })) {
		const info = statSync(join(root, path), { throwIfNoEntry: false });
		if (info?.isDirectory()) directories[path] = info.mode & 0o777;
		else if (info?.isFile()) files[path] = info.mode & 0o777;
	}
	return { files, directories };
}

/** An inbound AS2 message on a raw socket (plain, with a sync MDN request); resolves with the raw answer. */
function receive(contentType: string, body: string) {
	const head = requestHead(
		{ method: "POST", path: "/as2/receive" },
		{
			"as2-version": "1.2",
			"as2-from": world.partnerAs2Id,
			"as2-to": world.tenantAs2Id,
			"message-id": `<${randomUUID()}@partner.example>`,
			"content-type": contentType,
			"disposition-notification-to": "as2@partner.example",
			connection: "close",
		},
		Buffer.byteLength(body),
		randomUUID(),
	);
	return rawRequest(server.port, head, [body]);
}

describe("files at rest", () => {
	it("creates the database, payload blobs and master key 0600, in directories 0700", async () => {
		// Payloads on both of the blob store's paths (small: one write; large: streamed), outbound and inbound.
		const small = await call(server.base, "POST", "/v1/messages", {
			token: world.token,
			body: { partner_id: world.partnerId, content_type: "application/edi-x12", payload: { content: "ISA*00*~" } },
		});
		expect(small.status).toBe(202);
		const large = await call(server.base, "POST", "/v1/messages", {
			token: world.token,
			body: messageForm(world, 1_500_000),
			headers: { "content-type": "multipart/form-data; boundary=----as2kit-blackbox-boundary" },
		});
		expect(large.status).toBe(202);
		expect((await receive("application/edi-x12", "ISA*00*~".repeat(200_000))).status).toBe(200);

		const { files, directories } = modesUnder(data);
		const names = Object.keys(files);
		expect(names).toContain("master.key");
		expect(names.filter((name) => name.startsWith("blobs/")).length).toBeGreaterThanOrEqual(3);
		if (onSqlite)
			expect(names).toEqual(expect.arrayContaining(["db/as2.sqlite", "db/as2.sqlite-wal", "db/as2.sqlite-shm"]));
		for (const [name, mode] of Object.entries(files)) expect(mode.toString(8), name).toBe("600");
		for (const [name, mode] of Object.entries(directories)) expect(mode.toString(8), name).toBe("700");
	});

	it("holds no blob open after refusing hostile inbound messages, so their disk space is returned", async () => {
		const openBlobs = () =>
			readdirSync(`/proc/${server.pid}/fd`).filter((fd) => {
				try {
					const path = readlinkSync(`/proc/${server.pid}/fd/${fd}`);
					// Not the blob store's one open segment (stop 33): small blobs are appended to it and a
					// deleted one's bytes are zeroed in place, so holding it holds no refused blob's space.
					return path.startsWith(join(data, "blobs")) && !path.startsWith(join(data, "blobs", "segments"));
				} catch {
					return false;
				}
			});
		// CMS garbage over 1 MiB: stored as a raw blob, unpacked from a file stream, refused midway.
		for (let i = 0; i < 5; i++) {
			const answer = await receive("application/pkcs7-mime; smime-type=enveloped-data", "garbage".repeat(300_000));
			expect(answer.raw).toMatch(/processed\/error/);
		}
		// Closing a file is asynchronous: wait for it, bounded.
		const deadline = Date.now() + 10_000;
		while (openBlobs().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
		expect(openBlobs()).toEqual([]);
	});
});
