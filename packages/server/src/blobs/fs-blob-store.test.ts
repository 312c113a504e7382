import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAs2Error } from "@as2kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { blobPaths, createFsBlobStore } from "./fs-blob-store.ts";

const roots: string[] = [];
afterEach(() => {
	for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function store() {
	const root = mkdtempSync(join(tmpdir(), "as2kit-blob-test-"));
	roots.push(root);
	return { root, blobs: createFsBlobStore(root) };
}

/** `bytes` as a stream of chunks of at most 64 KiB, as a request body arrives. */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
	let offset = 0;
	return new ReadableStream({
		pull(controller) {
			if (offset >= bytes.byteLength) return controller.close();
			controller.enqueue(bytes.subarray(offset, offset + 65536));
			offset += 65536;
		},
	});
}

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<Buffer> {
	if (!stream) throw new Error("no blob");
	return Buffer.from(await new Response(stream).arrayBuffer());
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("fs blob store", () => {
	// 10 KB takes the one-call write path, 1 MB the streamed one.
	for (const size of [0, 10_240, 1_048_576]) {
		it(`stores ${size} bytes and reads back the same bytes, size and digest`, async () => {
			const { root, blobs } = store();
			const bytes = randomBytes(size);
			const info = await blobs.put("tnt_1/msg_1/payload", streamOf(bytes));
			// A small blob is appended to a segment, keyed by where it is (segment-blobs.test.ts).
			const key = size <= 262_144 ? expect.stringMatching(/^seg\//) : "tnt_1/msg_1/payload";
			expect(info).toEqual({ key, bytes: size, sha256: sha256(bytes) });
			expect((await readAll(await blobs.get(info.key))).equals(bytes)).toBe(true);
			expect(await blobs.stat(info.key)).toEqual(info);
			// A large blob: one file, no temporary left behind; a small one: no file of its own.
			if (size > 262_144) expect(readdirSync(join(root, "tnt_1/msg_1"))).toEqual(["payload"]);
			else expect(existsSync(join(root, "tnt_1"))).toBe(false);
			await blobs.delete(info.key);
			expect(await blobs.get(info.key)).toBeNull();
			expect(await blobs.stat(info.key)).toBeNull();
		});
	}

	it("reads a blob whole up to 256 KiB and streams one a byte over, the same bytes either way", async () => {
		const { blobs } = store();
		for (const size of [262_144, 262_145]) {
			const bytes = randomBytes(size);
			const info = await blobs.put(`edge/${size}`, streamOf(bytes));
			const chunks: Uint8Array[] = [];
			const reader = ((await blobs.get(info.key)) as ReadableStream<Uint8Array>).getReader();
			for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
			expect(Buffer.concat(chunks).equals(bytes), `${size}`).toBe(true);
			// The read path: one chunk when read whole, the file stream's chunks otherwise.
			expect(chunks.length > 1, `${size}`).toBe(size > 262_144);
		}
		expect(await blobs.get("edge/none")).toBeNull();
	});

	it("reads the same bytes as chunks, without a web stream, whole up to 256 KiB", async () => {
		const { blobs } = store();
		for (const size of [0, 10_240, 262_144, 262_145]) {
			const bytes = randomBytes(size);
			const info = await blobs.put(`chunks/${size}`, streamOf(bytes));
			const chunks: Uint8Array[] = [];
			for await (const chunk of (await blobs.chunks!(info.key))!) chunks.push(chunk);
			expect(Buffer.concat(chunks).equals(bytes), `${size}`).toBe(true);
			// One chunk when read whole (none when empty), the file stream's chunks otherwise.
			if (size <= 262_144) expect(chunks.length, `${size}`).toBe(size === 0 ? 0 : 1);
			else expect(chunks.length, `${size}`).toBeGreaterThan(1);
		}
		expect(await blobs.chunks!("chunks/none")).toBeNull();
		await expect(blobs.chunks!("/etc/passwd")).rejects.toThrow(/unsafe blob key/);
	});

	it("refuses a payload over maxBytes, on either path, and keeps nothing", async () => {
		const { root, blobs } = store();
		for (const [size, maxBytes] of [
			[2_000, 1_000],
			[1_048_576, 300_000],
		] as const) {
			const error = await blobs.put(`k/${size}`, streamOf(randomBytes(size)), { maxBytes }).catch((e) => e);
			expect(isAs2Error(error) && error.code).toBe("PAYLOAD_TOO_LARGE");
		}
		expect(readdirSync(root, { recursive: true })).toEqual([]);
	});

	it("stores bytes in memory with putBytes as put stores them, in a segment up to 256 KiB and a file past it", async () => {
		const { root, blobs } = store();
		for (const parts of [
			[randomBytes(3_000)],
			[randomBytes(3_000), new Uint8Array(0), randomBytes(500)],
			[randomBytes(200_000), randomBytes(100_000)],
		]) {
			const whole = Buffer.concat(parts);
			const info = await blobs.putBytes!("payloads/in-memory", parts);
			expect(info.bytes).toBe(whole.byteLength);
			expect(info.sha256).toBe(sha256(whole));
			expect(info.key.startsWith("seg/")).toBe(whole.byteLength <= 256 * 1024);
			expect((await readAll(await blobs.get(info.key))).equals(whole)).toBe(true);
			expect(await blobs.stat(info.key)).toEqual(info);
			const put = await blobs.put("payloads/streamed", streamOf(whole));
			expect({ ...put, key: "" }).toEqual({ ...info, key: "" });
			await blobs.delete(info.key);
			expect(await blobs.get(info.key)).toBeNull();
		}
		const error = await blobs.putBytes!("k/over", [randomBytes(600), randomBytes(600)], { maxBytes: 1_000 }).catch(
			(e) => e,
		);
		expect(isAs2Error(error) && error.code).toBe("PAYLOAD_TOO_LARGE");
		await expect(blobs.putBytes!("../escape", [new Uint8Array(1)])).rejects.toThrow(/unsafe blob key/);
		await expect(blobs.putBytes!("seg/2026112812/0123456789abcdef/0-1", [new Uint8Array(1)])).rejects.toThrow(
			/store's own names/,
		);
		blobs.close();
		const { blobs: plain } = { blobs: createFsBlobStore(root, { segments: false }) };
		const info = await plain.putBytes!("payloads/file", [randomBytes(10)]);
		expect(info.key).toBe("payloads/file");
		expect(statSync(join(root, "payloads/file")).size).toBe(10);
	});

	it("takes an async iterable as well (a Node request, a generator), and ends it early when refused", async () => {
		const { blobs } = store();
		const bytes = randomBytes(300_000);
		const chunksOf = async function* (watch?: { ended: boolean }) {
			try {
				for (let offset = 0; offset < bytes.byteLength; offset += 65536) yield bytes.subarray(offset, offset + 65536);
			} finally {
				if (watch) watch.ended = true;
			}
		};
		const info = await blobs.put("it/whole", chunksOf());
		expect(info).toEqual({ key: "it/whole", bytes: bytes.byteLength, sha256: sha256(bytes) });
		expect((await readAll(await blobs.get(info.key))).equals(bytes)).toBe(true);
		const watch = { ended: false };
		const error = await blobs.put("it/over", chunksOf(watch), { maxBytes: 100_000 }).catch((e) => e);
		expect(isAs2Error(error) && error.code).toBe("PAYLOAD_TOO_LARGE");
		expect(watch.ended).toBe(true);
		expect(await blobs.stat("it/over")).toBeNull();
	});

	// Issue #16, defect 1: a client that resets mid-upload made put() destroy its file stream
	// while a write was in flight; the stream then emitted an 'error' nobody listened to, and
	// the process exited. The sources below fail right after a few small chunks (under the
	// stream's buffer, so put() does not wait for them), while their write is still on its way
	// to the disk.
	const failingSources = {
		"an async iterable": () =>
			(async function* () {
				yield randomBytes(400_000);
				for (let i = 0; i < 3; i++) yield randomBytes(1000);
				throw new Error("aborted");
			})(),
		"a web stream": () => {
			let pulls = 0;
			return new ReadableStream<Uint8Array>({
				pull(controller) {
					pulls++;
					if (pulls === 1) controller.enqueue(randomBytes(400_000));
					else if (pulls <= 4) controller.enqueue(randomBytes(1000));
					else controller.error(new Error("aborted"));
				},
			});
		},
	};
	for (const [kind, source] of Object.entries(failingSources)) {
		it(`fails cleanly when ${kind} fails while a write is in flight, and keeps no temporary file`, async () => {
			const { root, blobs } = store();
			const uncaught: unknown[] = [];
			const record = (error: unknown) => uncaught.push(error);
			process.on("uncaughtException", record);
			try {
				for (let attempt = 0; attempt < 10; attempt++) {
					await expect(blobs.put(`aborted/${attempt}`, source())).rejects.toThrow("aborted");
				}
				// A stream destroyed mid-write would emit its error after put() returned.
				await new Promise((resolve) => setTimeout(resolve, 100));
			} finally {
				process.off("uncaughtException", record);
			}
			expect(uncaught).toEqual([]);
			expect(readdirSync(join(root, "aborted"))).toEqual([]);
		});
	}

	// Issue #16, defect 12: payloads were created 0644 in 0755 directories.
	it("creates payload files and segments 0600 and their directories 0700, on either write path", async () => {
		const { root, blobs } = store();
		const base = join(root, "new-root");
		const nested = createFsBlobStore(base);
		const small = await nested.put("payloads/2026-03/small", streamOf(randomBytes(10_240)));
		await nested.put("payloads/2026-03/large", streamOf(randomBytes(1_048_576)));
		await nested.delete(small.key);
		await blobs.put("top", streamOf(randomBytes(100)));
		const mode = (path: string) => statSync(path).mode & 0o777;
		const entries = readdirSync(base, { recursive: true, encoding: "utf8" });
		// The large blob's file, the small one's segment and its ledger of freed ranges.
		expect(
			entries
				.filter((path) => statSync(join(base, path)).isFile())
				.map((path) => path.replace(/[0-9a-f]{16}/, "ID").replace(/\d{10}/, "HOUR"))
				.sort(),
		).toEqual(["payloads/2026-03/large", "segments/HOUR/ID.seg", "segments/HOUR/ID.seg.freed"]);
		for (const path of entries) {
			const full = join(base, path);
			expect(mode(full).toString(8), path).toBe(statSync(full).isFile() ? "600" : "700");
		}
		expect(mode(base)).toBe(0o700);
		expect(mode(join(root, "segments"))).toBe(0o700);
		nested.close();
		blobs.close();
	});

	it("refuses keys that could leave its directory", async () => {
		const { blobs } = store();
		await expect(blobs.put("../escape", streamOf(new Uint8Array(1)))).rejects.toThrow(/unsafe blob key/);
		await expect(blobs.get("/etc/passwd")).rejects.toThrow(/unsafe blob key/);
	});

	it("puts a blob where join(root, key) says, and refuses what the safe-key rule refuses", () => {
		const safe = /^(?!.*\.\.)[A-Za-z0-9_-][A-Za-z0-9_./-]{0,255}$/;
		const keys = [
			"payloads/2026-03/msg_000001",
			"a",
			"file.name.edi",
			"a/b/c-d_e.f",
			"a//b",
			"a/./b",
			"a/.",
			"a/",
			"a/.hidden",
			"-x/_y",
			"file..txt",
			"a/../b",
			"../escape",
			"/etc/passwd",
			".hidden",
			"",
			"a b",
			"a\\b",
			"x".repeat(256),
			"x".repeat(257),
			`${"a/".repeat(127)}bb`,
		];
		for (const root of ["/srv/blobs", "/srv/blobs/", "/srv//blobs/./x/..", "relative/dir", ".", "/"]) {
			const pathOf = blobPaths(root);
			for (const key of keys) {
				if (safe.test(key)) expect(pathOf(key), `${root} + ${key}`).toBe(join(root, key));
				else expect(() => pathOf(key), `${root} + ${key}`).toThrow(/unsafe blob key/);
			}
		}
	});
});
