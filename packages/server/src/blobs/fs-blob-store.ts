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
import { chunksOf, partsBody, payloadTooLarge } from "./blob-body.ts";
import { type FileSink, openFileSink, PRIVATE_DIRECTORY_MODE, PRIVATE_FILE_MODE } from "./file-sink.ts";
import { readFileStream } from "./file-source.ts";
import { createSegmentBlobs, type SegmentOptions } from "./segment-blobs.ts";
import { parseSegmentKey, SEGMENT_DIRECTORY, SEGMENT_KEY_PREFIX } from "./segment-key.ts";

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

export interface FsBlobStoreOptions extends Omit<SegmentOptions, "maxBlobBytes"> {
	/**
	 * Small blobs appended to segment files (the default), or a file each as before stop 33
	 * (`false`: what the segment tests compare with, and a way back).
	 */
	segments?: boolean;
}

/**
 * Payload blobs under one directory (`BLOB_DIR`). A blob written whole (up to
 * SMALL_BLOB_BYTES) is appended as a record to this store's open segment file
 * (segment-blobs.ts) and keyed by where it is: `put` returns that key, and the key asked for
 * is only a name hint (the BlobStore port). A larger one streams to a temporary file renamed
 * into place under the requested key when complete, so readers never see half a payload, and a
 * crash leaves only a temporary file (or a torn segment tail nobody has a key to) behind.
 * Several instances may share the directory (a shared volume): each appends only to its own
 * segments and writes files under unique keys, and any reads and deletes any blob. Keys that are
 * not segment keys are paths, as every key was before stop 33: those blobs still read, stat
 * and delete. Nothing is fsynced, on either path (the same durability as before segments).
 */
export function createFsBlobStore(root: string, options: FsBlobStoreOptions = {}): BlobStore & { close(): void } {
	const pathOf = blobPaths(root);
	const madeDirectories = new Set<string>();
	const ensureDirectory = (path: string) => {
		const directory = dirname(path);
		if (madeDirectories.has(directory)) return;
		mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
		if (madeDirectories.size > 10_000) madeDirectories.clear();
		madeDirectories.add(directory);
	};
	const segments =
		options.segments === false ? null : createSegmentBlobs(root, { ...options, maxBlobBytes: SMALL_BLOB_BYTES });
	/**
	 * The blob `key` names: its bytes whole (a segment record, or a file of at most
	 * SMALL_READ_BYTES), the path of a larger file to stream, or null when there is none.
	 */
	const find = (key: string): { bytes: Uint8Array } | { largeFile: string } | null => {
		if (key.startsWith(SEGMENT_KEY_PREFIX)) {
			const segmentKey = parseSegmentKey(key);
			const bytes = segmentKey && segments ? segments.read(segmentKey) : null;
			return bytes && { bytes };
		}
		const path = pathOf(key);
		const bytes = readSmallFile(path);
		if (bytes === null) return null;
		return bytes === TOO_LARGE_TO_READ_WHOLE ? { largeFile: path } : { bytes };
	};

	/** `key`'s path, refusing the store's own names (segment keys and the segments' directory). */
	const requestedPath = (key: string) => {
		const path = pathOf(key);
		if (key.startsWith(SEGMENT_KEY_PREFIX) || key.startsWith(`${SEGMENT_DIRECTORY}/`)) {
			throw new Error(`unsafe blob key: ${key} (the store's own names)`);
		}
		return path;
	};

	const store: BlobStore & { close(): void } = {
		async put(key, body, options = {}) {
			const path = requestedPath(key);
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
						ensureDirectory(path);
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
					if (segments) return { key: segments.append(held, bytes), bytes, sha256: hashChunks(held) };
					ensureDirectory(path);
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

		// Bytes in memory up to SMALL_BLOB_BYTES go to the segment at once: what `put` does with
		// them once its reads are over, without the reads (issue #20). Anything else is `put`'s.
		async putBytes(key, parts, options = {}) {
			requestedPath(key);
			let bytes = 0;
			for (const part of parts) bytes += part.byteLength;
			if (options.maxBytes !== undefined && bytes > options.maxBytes) throw payloadTooLarge(options.maxBytes);
			if (!segments || bytes > SMALL_BLOB_BYTES) return store.put(key, partsBody(parts), options);
			return { key: segments.append(parts, bytes), bytes, sha256: hashChunks(parts) };
		},

		async get(key) {
			const found = find(key);
			if (!found) return null;
			return "bytes" in found ? wholeStream(found.bytes) : readFileStream(found.largeFile);
		},

		async chunks(key) {
			const found = find(key);
			if (!found) return null;
			return "bytes" in found ? wholeChunk(found.bytes) : toChunks(readFileStream(found.largeFile));
		},

		// The digest is computed again rather than kept beside the blob: put returns it to the
		// caller, who records it; stat is rare, and a second file per blob cost every put.
		async stat(key): Promise<BlobInfo | null> {
			const found = find(key);
			if (!found) return null;
			if ("bytes" in found) return { key, bytes: found.bytes.byteLength, sha256: hashOnce("sha256", found.bytes) };
			try {
				const info = await stat(found.largeFile);
				const hash = createHash("sha256");
				for await (const chunk of createReadStream(found.largeFile)) hash.update(chunk as Buffer);
				return { key, bytes: info.size, sha256: hash.digest("hex") };
			} catch {
				return null;
			}
		},

		async delete(key) {
			if (!key.startsWith(SEGMENT_KEY_PREFIX)) return rm(pathOf(key), { force: true });
			const segmentKey = parseSegmentKey(key);
			if (segmentKey && segments) segments.remove(segmentKey);
		},

		/** Closes the open segment (a server stopping); the next small blob opens a new one. */
		close() {
			segments?.close();
		},
	};
	return store;
}

/** Chunks written whole are hashed in one pass, as one blob (one chunk in one call). */
function hashChunks(chunks: readonly Uint8Array[]): string {
	if (chunks.length === 1) return hashOnce("sha256", chunks[0]!);
	const hash = createHash("sha256");
	for (const chunk of chunks) hash.update(chunk);
	return hash.digest("hex");
}

/** Bytes read whole as `get`'s stream: one chunk, none when empty. */
function wholeStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
	return new ReadableStream<Uint8Array>({
		start(controller) {
			if (bytes.byteLength > 0) controller.enqueue(bytes);
			controller.close();
		},
	});
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
