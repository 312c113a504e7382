/**
 * The `BlobStore` port's conformance suite (issue #18): the same cases against every adapter —
 * the filesystem store (`BLOB_DIR`) and the S3 store (`BLOB_URL`) on a real S3-compatible server
 * (s3rver). Adapter-only behaviour (file modes, multipart aborts, ranged reads, S3 faults)
 * stays in each adapter's own tests.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAs2Error } from "@as2kit/core";
import type { BlobStore } from "@as2kit/core/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFsBlobStore } from "../../packages/server/src/blobs/fs-blob-store.ts";
import { openS3BlobStore } from "../../packages/server/src/blobs/s3-open.ts";
import { startS3Server } from "../s3/s3-server.ts";

const MIB = 1024 * 1024;

interface Adapter {
	name: string;
	open(): Promise<{ blobs: BlobStore; close(): Promise<void> }>;
}

const adapters: Adapter[] = [
	{
		name: "filesystem",
		async open() {
			const root = mkdtempSync(join(tmpdir(), "as2kit-blob-conformance-"));
			return { blobs: createFsBlobStore(root), close: async () => rmSync(root, { recursive: true, force: true }) };
		},
	},
	{
		name: "S3 (s3rver)",
		async open() {
			const s3 = await startS3Server();
			const { blobs, close } = openS3BlobStore({
				bucket: s3.bucket,
				prefix: "conformance/",
				region: "us-east-1",
				endpoint: s3.endpoint,
				credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
			});
			return {
				blobs,
				async close() {
					close();
					await s3.stop();
				},
			};
		},
	},
];

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

for (const adapter of adapters) {
	describe(`BlobStore conformance: ${adapter.name}`, () => {
		let blobs: BlobStore;
		let close: () => Promise<void>;
		beforeAll(async () => {
			({ blobs, close } = await adapter.open());
		});
		afterAll(() => close?.());

		// 0 bytes, one small chunk, several chunks, and more than two S3 parts (5 MiB).
		for (const size of [0, 10_240, 1 * MIB, 12 * MIB + 123]) {
			it(`stores ${size} bytes and reads back the same bytes, size and digest; delete removes it`, async () => {
				const bytes = randomBytes(size);
				const key = `tnt_1/msg_${size}/payload`;
				const info = await blobs.put(key, streamOf(bytes));
				expect(info).toEqual({ key: expect.any(String), bytes: size, sha256: sha256(bytes) });
				// The key to read it by is the one put returns (the port: a store may choose another).
				expect((await readAll(await blobs.get(info.key))).equals(bytes)).toBe(true);
				expect(await blobs.stat(info.key)).toEqual(info);
				await blobs.delete(info.key);
				expect(await blobs.get(info.key)).toBeNull();
				expect(await blobs.stat(info.key)).toBeNull();
			});
		}

		it("answers null for a blob that never was, and deletes one quietly", async () => {
			expect(await blobs.get("never/was")).toBeNull();
			expect(await blobs.stat("never/was")).toBeNull();
			await blobs.delete("never/was");
		});

		it("refuses a payload over maxBytes, small or past a part, and keeps nothing", async () => {
			for (const [size, maxBytes] of [
				[2_000, 1_000],
				[10 * MIB, 9 * MIB],
			] as const) {
				const key = `limit/${size}`;
				const error = await blobs.put(key, streamOf(randomBytes(size)), { maxBytes }).catch((e) => e);
				expect(isAs2Error(error) && error.code).toBe("PAYLOAD_TOO_LARGE");
				expect(error.details).toEqual({ max_bytes: maxBytes });
				expect(await blobs.get(key)).toBeNull();
			}
			const exact = randomBytes(3_000);
			expect((await blobs.put("limit/exact", streamOf(exact), { maxBytes: 3_000 })).bytes).toBe(3_000);
		});

		it("takes an async iterable too, and ends it when the limit refuses it", async () => {
			const bytes = randomBytes(300_000);
			const watch = { ended: false };
			const chunks = async function* () {
				try {
					for (let offset = 0; offset < bytes.byteLength; offset += 65536) yield bytes.subarray(offset, offset + 65536);
				} finally {
					watch.ended = true;
				}
			};
			const info = await blobs.put("iterable/whole", chunks());
			expect(info.sha256).toBe(sha256(bytes));
			watch.ended = false;
			const error = await blobs.put("iterable/over", chunks(), { maxBytes: 100_000 }).catch((e) => e);
			expect(isAs2Error(error) && error.code).toBe("PAYLOAD_TOO_LARGE");
			expect(watch.ended).toBe(true);
			expect(await blobs.get("iterable/over")).toBeNull();
		});

		it("passes on a failing source's own error, before or after a part went out, and keeps nothing", async () => {
			for (const failAfter of [100_000, 9 * MIB]) {
				const source = (async function* () {
					for (let sent = 0; sent < failAfter; sent += MIB) yield randomBytes(Math.min(MIB, failAfter - sent));
					throw new Error("client went away");
				})();
				await expect(blobs.put(`failing/${failAfter}`, source)).rejects.toThrow("client went away");
				expect(await blobs.get(`failing/${failAfter}`)).toBeNull();
			}
		});

		it("lets a reader stop early, and the blob stays whole for the next one", async () => {
			const bytes = randomBytes(3 * MIB);
			const { key } = await blobs.put("early/stop", streamOf(bytes));
			const reader = (await blobs.get(key))!.getReader();
			const first = await reader.read();
			expect(first.done).toBe(false);
			await reader.cancel();
			expect((await readAll(await blobs.get(key))).equals(bytes)).toBe(true);
		});

		it("keeps blobs written at the same time apart", async () => {
			const payloads = Array.from({ length: 8 }, (_, i) => randomBytes(200_000 + i));
			const infos = await Promise.all(payloads.map((bytes, i) => blobs.put(`parallel/${i}`, streamOf(bytes))));
			for (const [i, bytes] of payloads.entries()) {
				expect((await readAll(await blobs.get(infos[i]!.key))).equals(bytes)).toBe(true);
			}
		});
	});
}
