import { createHash, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { As2Error } from "@as2kit/core";
import type { BlobInfo, BlobStore } from "@as2kit/core/store";

const SAFE_KEY = /^(?!.*\.\.)[A-Za-z0-9_-][A-Za-z0-9_./-]{0,255}$/;

/**
 * Payload blobs as files under one directory (`BLOB_DIR`). A blob is written to a temporary
 * file and renamed into place when complete, so readers never see half a payload, and a
 * crash leaves only a temporary file behind. Several instances may share the directory
 * (a shared volume): keys are unique and writes never overwrite in place.
 */
export function createFsBlobStore(root: string): BlobStore {
	const pathOf = (key: string) => {
		if (!SAFE_KEY.test(key)) throw new Error(`unsafe blob key: ${key}`);
		return join(root, key);
	};
	const sidecar = (path: string) => `${path}.sha256`;

	return {
		async put(key, body, options = {}) {
			const path = pathOf(key);
			await mkdir(dirname(path), { recursive: true });
			const temporary = `${path}.${randomUUID()}.partial`;
			const out = createWriteStream(temporary, { flags: "wx" });
			const hash = createHash("sha256");
			let bytes = 0;
			const reader = body.getReader();
			try {
				for (;;) {
					const { done, value } = await reader.read();
					if (done) break;
					bytes += value.byteLength;
					if (options.maxBytes !== undefined && bytes > options.maxBytes) {
						await reader.cancel().catch(() => {});
						throw new As2Error("PAYLOAD_TOO_LARGE", `the payload exceeds ${options.maxBytes} bytes`, {
							details: { max_bytes: options.maxBytes },
						});
					}
					hash.update(value);
					if (!out.write(value)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
				}
				out.end();
				await finished(out);
				const sha256 = hash.digest("hex");
				await writeFile(sidecar(path), sha256);
				await rename(temporary, path);
				return { key, bytes, sha256 };
			} catch (error) {
				out.destroy();
				await rm(temporary, { force: true });
				throw error;
			} finally {
				reader.releaseLock();
			}
		},

		async get(key) {
			const path = pathOf(key);
			try {
				await stat(path);
			} catch {
				return null;
			}
			return Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
		},

		async stat(key): Promise<BlobInfo | null> {
			const path = pathOf(key);
			try {
				const info = await stat(path);
				const sha256 = await readFile(sidecar(path), "utf8").catch(() => "");
				return { key, bytes: info.size, sha256 };
			} catch {
				return null;
			}
		},

		async delete(key) {
			const path = pathOf(key);
			await rm(path, { force: true });
			await rm(sidecar(path), { force: true });
		},
	};
}
