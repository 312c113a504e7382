import { createHash, type Hash, hash as hashOnce, randomUUID } from "node:crypto";
import {
	closeSync,
	createReadStream,
	fstatSync,
	mkdirSync,
	openSync,
	readSync,
	renameSync,
	writeFileSync,
} from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { concatBytes, toChunks } from "@as2kit/core";
import type { BlobInfo, BlobStore } from "@as2kit/core/store";
import { chunksOf, payloadTooLarge } from "./blob-body.ts";
import { type FileSink, openFileSink, PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from "./file-sink.ts";
import { readFileStream } from "./file-source.ts";

const SAFE_KEY = /^(?!.*\.\.)[A-Za-z0-9_-][A-Za-z0-9_./-]{0,255}$/;
/** A safe key already in normal form: segments none empty and none starting with a dot. */
const PLAIN_KEY = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;

/**
 * Where each blob's file is under `root`: join(root, key), for safe keys only. path.join
 * normalizes, 0.6 µs a call, two or three calls a message (issue #20): a plain key (how the
 * service names blobs) is appended to the normalized root as it is, which is what join gives.
 */
export function blobPaths(root: string): (key: string) => string {
	const prefix = join(root, "_").slice(0, -1);
	return (key) => {
		if (key.length <= 256 && PLAIN_KEY.test(key) && !key.includes("..")) return prefix + key;
		if (!SAFE_KEY.test(key)) throw new Error(`unsafe blob key: ${key}`);
		return join(root, key);
	};
}
/**
 * Blobs up to this size are written in one synchronous call once complete: a few small
 * syscalls cost less than the thread-pool round trips of a stream (most EDI messages are
 * kilobytes). Larger ones stream to disk as they arrive.
 */
const SMALL_BLOB_BYTES = 256 * 1024;
/** Reads of files this small come back as one chunk, without a read stream. */
const SMALL_READ_BYTES = 256 * 1024;

/**
 * Payload blobs as files under one directory (`BLOB_DIR`). A blob is written to a temporary
 * file and renamed into place when complete, so readers never see half a payload, and a
 * crash leaves only a temporary file behind. Several instances may share the directory
 * (a shared volume): keys are unique and writes never overwrite in place.
 */
export function createFsBlobStore(root: string): BlobStore {
	const pathOf = blobPaths(root);
	const madeDirectories = new Set<string>();
	const ensureDirectory = (path: string) => {
		const directory = dirname(path);
		if (madeDirectories.has(directory)) return;
		mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
		if (madeDirectories.size > 10_000) madeDirectories.clear();
		madeDirectories.add(directory);
	};

	return {
		async put(key, body, options = {}) {
			const path = pathOf(key);
			ensureDirectory(path);
			const temporary = `${path}.${randomUUID()}.partial`;
			// A blob written whole is hashed whole, in one call; a streamed one as it streams.
			let hash: Hash | null = null;
			const chunks = chunksOf(body);
			const held: Uint8Array[] = [];
			let bytes = 0;
			let file: FileSink | null = null;
			try {
				for (;;) {
					const { done, value } = await chunks.next();
					if (done) break;
					bytes += value.byteLength;
					if (options.maxBytes !== undefined && bytes > options.maxBytes) {
						throw payloadTooLarge(options.maxBytes);
					}
					if (!file && bytes <= SMALL_BLOB_BYTES) {
						held.push(value);
						continue;
					}
					if (!file || !hash) {
						file = await openFileSink(temporary);
						hash = createHash("sha256");
						for (const chunk of held.splice(0)) {
							hash.update(chunk);
							await file.write(chunk);
						}
					}
					hash.update(value);
					await file.write(value);
				}
				if (!file || !hash) {
					const whole = held.length === 1 ? held[0]! : concatBytes(held);
					writeFileSync(temporary, whole, { flag: "wx", mode: PRIVATE_FILE_MODE });
					renameSync(temporary, path);
					return { key, bytes, sha256: hashOnce("sha256", whole) };
				}
				await file.close();
				await rename(temporary, path);
				return { key, bytes, sha256: hash.digest("hex") };
			} catch (error) {
				// Whatever failed (the source, the limit, the disk), the source is let go of and the
				// temporary file removed: only a crash leaves a `.partial` behind.
				await chunks.cancel();
				await file?.abandon();
				await rm(temporary, { force: true });
				throw error;
			} finally {
				chunks.release();
			}
		},

		async get(key) {
			const path = pathOf(key);
			const bytes = readSmallFile(path);
			if (bytes === null) return null;
			if (bytes === TOO_LARGE_TO_READ_WHOLE) return readFileStream(path);
			return new ReadableStream<Uint8Array>({
				start(controller) {
					if (bytes.byteLength > 0) controller.enqueue(bytes);
					controller.close();
				},
			});
		},

		async chunks(key) {
			const path = pathOf(key);
			const bytes = readSmallFile(path);
			if (bytes === null) return null;
			if (bytes === TOO_LARGE_TO_READ_WHOLE) return toChunks(readFileStream(path));
			return wholeChunk(bytes);
		},

		// The digest is computed again rather than kept beside the blob: put returns it to the
		// caller, who records it; stat is rare, and a second file per blob cost every put.
		async stat(key): Promise<BlobInfo | null> {
			const path = pathOf(key);
			try {
				const info = await stat(path);
				const hash = createHash("sha256");
				for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
				return { key, bytes: info.size, sha256: hash.digest("hex") };
			} catch {
				return null;
			}
		},

		async delete(key) {
			await rm(pathOf(key), { force: true });
		},
	};
}

const TOO_LARGE_TO_READ_WHOLE = Symbol("too large to read whole");

/** A file read whole, as one chunk (none when empty, as `get`'s stream). */
async function* wholeChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
	if (bytes.byteLength > 0) yield bytes;
}

/**
 * A file of at most SMALL_READ_BYTES, whole, or null when there is none: open, fstat, read,
 * close. `statSync` then `readFileSync` made five calls (the path's stat, then open, fstat,
 * read, close) on each message's payload read (issue #20).
 */
function readSmallFile(path: string): Uint8Array | null | typeof TOO_LARGE_TO_READ_WHOLE {
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch {
		return null;
	}
	try {
		const size = fstatSync(fd).size;
		if (size > SMALL_READ_BYTES) return TOO_LARGE_TO_READ_WHOLE;
		const bytes = new Uint8Array(size);
		let read = 0;
		while (read < size) {
			const n = readSync(fd, bytes, read, size - read, read);
			if (n === 0) break;
			read += n;
		}
		return read === size ? bytes : bytes.subarray(0, read);
	} finally {
		closeSync(fd);
	}
}
