import { createHash } from "node:crypto";
import { concatBytes } from "@as2kit/core";
import {
	AbortMultipartUploadCommand,
	type CompletedPart,
	CompleteMultipartUploadCommand,
	CreateMultipartUploadCommand,
	PutObjectCommand,
	type S3Client,
	UploadPartCommand,
} from "@aws-sdk/client-s3";
import { chunksOf, payloadTooLarge } from "./blob-body.ts";
import { s3Call } from "./s3-errors.ts";

export interface UploadTarget {
	client: S3Client;
	bucket: string;
	key: string;
	/** Bytes per part; S3 takes 5 MiB at least for every part but the last. */
	partBytes: number;
}

/** Parts sent at once: with the one being filled, memory stays at three parts. */
const PARTS_IN_FLIGHT = 2;

/**
 * Streams `body` into one S3 object with bounded memory: a body that fits in one part is one
 * PutObject; a larger one a multipart upload whose parts go out while the next fills. The
 * object appears only when complete (S3 makes a multipart object visible at its Complete).
 * Whatever fails — the source, the `maxBytes` limit, S3 — the source is cancelled, the parts in
 * flight are stopped and the multipart upload aborted, so S3 keeps (and bills) no orphan parts.
 * Errors of the source come back as they are; errors of S3 as SERVICE_UNAVAILABLE.
 */
export async function uploadStreamed(
	target: UploadTarget,
	body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
	maxBytes: number | undefined,
): Promise<{ bytes: number; sha256: string }> {
	const { client, bucket, key, partBytes } = target;
	const hash = createHash("sha256");
	const chunks = chunksOf(body);
	const stop = new AbortController();
	const inFlight: Promise<void>[] = [];
	const parts: CompletedPart[] = [];
	const filler = new PartFiller(partBytes);
	let bytes = 0;
	let uploadId: string | undefined;
	let partCount = 0;

	const sendPart = async (part: Uint8Array) => {
		uploadId ??= (
			await s3Call("start an upload", () =>
				client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }), { abortSignal: stop.signal }),
			)
		).UploadId;
		const PartNumber = ++partCount;
		const sent = s3Call("store a part", () =>
			client.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber, Body: part }), {
				abortSignal: stop.signal,
			}),
		).then(({ ETag }) => {
			parts.push({ PartNumber, ETag });
			filler.recycle(part);
		});
		// Awaited below in order; this only keeps a later part's failure from being unhandled
		// while an earlier one is awaited.
		sent.catch(() => {});
		inFlight.push(sent);
		while (inFlight.length >= PARTS_IN_FLIGHT) await inFlight.shift();
	};

	try {
		for (;;) {
			const { done, value } = await chunks.next();
			if (done) break;
			bytes += value.byteLength;
			if (maxBytes !== undefined && bytes > maxBytes) throw payloadTooLarge(maxBytes);
			hash.update(value);
			for (const part of filler.add(value)) await sendPart(part);
		}
		const rest = filler.rest();
		if (uploadId === undefined) {
			await s3Call("store the payload", () =>
				client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: rest }), { abortSignal: stop.signal }),
			);
		} else {
			if (rest.byteLength > 0) await sendPart(rest);
			while (inFlight.length > 0) await inFlight.shift();
			parts.sort((a, b) => a.PartNumber! - b.PartNumber!);
			await s3Call("complete the upload", () =>
				client.send(
					new CompleteMultipartUploadCommand({
						Bucket: bucket,
						Key: key,
						UploadId: uploadId,
						MultipartUpload: { Parts: parts },
					}),
					{ abortSignal: stop.signal },
				),
			);
		}
		return { bytes, sha256: hash.digest("hex") };
	} catch (error) {
		await chunks.cancel();
		// Parts already on their way are let land first (bounded): S3 may store a part whose
		// upload was under way when the upload was aborted, which then needs another abort
		// (AbortMultipartUpload: "might be necessary to abort … multiple times"). A healthy store
		// answers them in moments; one that does not answer is cut off after the bound.
		await Promise.race([Promise.allSettled(inFlight), delay(PARTS_SETTLE_MS)]);
		stop.abort();
		await Promise.allSettled(inFlight);
		if (uploadId !== undefined) {
			// Best effort: the first error is the one to report. A store where the abort fails too
			// is left to a bucket lifecycle rule (README: AbortIncompleteMultipartUpload).
			await client
				.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
				.catch(() => {});
		}
		throw error;
	} finally {
		chunks.release();
	}
}

/** How long a failed upload waits for its parts in flight before it cuts them off and aborts. */
const PARTS_SETTLE_MS = 2_000;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Bodies up to this size are kept as the chunks they came in, and sent in one PutObject. */
const SMALL_BYTES = 256 * 1024;

/**
 * Chunks gathered into parts of exactly `partBytes`. A small body stays a list of its chunks;
 * past SMALL_BYTES, each chunk is copied once into a part buffer as it arrives, so the source's
 * chunks are let go of at once and a part costs its own size, not twice that.
 */
class PartFiller {
	private small: Uint8Array[] = [];
	private smallBytes = 0;
	private streaming = false;
	private part: Buffer | null = null;
	private filled = 0;
	/** Part buffers whose upload is done, filled again rather than left to the GC. */
	private readonly spare: Buffer[] = [];

	constructor(private readonly partBytes: number) {}

	/** Takes a chunk; returns the parts it completed. */
	add(chunk: Uint8Array): Uint8Array[] {
		if (!this.streaming && this.smallBytes + chunk.byteLength <= SMALL_BYTES) {
			this.small.push(chunk);
			this.smallBytes += chunk.byteLength;
			return [];
		}
		const completed: Uint8Array[] = [];
		if (!this.streaming) {
			this.streaming = true;
			for (const held of this.small.splice(0)) this.copy(held, completed);
		}
		this.copy(chunk, completed);
		return completed;
	}

	/** What is left after the last chunk: the last part, possibly empty. */
	rest(): Uint8Array {
		if (!this.streaming) return this.small.length === 1 ? this.small[0]! : concatBytes(this.small);
		return this.part ? this.part.subarray(0, this.filled) : new Uint8Array(0);
	}

	/**
	 * Takes back a part once S3 has it. Without this, a 1 GB upload left 200 part buffers to the
	 * garbage collector, which let tens of MB of them pile up before collecting: the peak grew
	 * with the payload.
	 */
	recycle(part: Uint8Array): void {
		if (part instanceof Buffer && part.byteLength === this.partBytes && this.spare.length < PARTS_IN_FLIGHT) {
			this.spare.push(part);
		}
	}

	private copy(chunk: Uint8Array, completed: Uint8Array[]): void {
		for (let offset = 0; offset < chunk.byteLength; ) {
			// Not zero-filled: only the bytes copied in are ever sent.
			this.part ??= this.spare.pop() ?? Buffer.allocUnsafeSlow(this.partBytes);
			const n = Math.min(this.partBytes - this.filled, chunk.byteLength - offset);
			this.part.set(chunk.subarray(offset, offset + n), this.filled);
			this.filled += n;
			offset += n;
			if (this.filled === this.partBytes) {
				completed.push(this.part);
				this.part = null;
				this.filled = 0;
			}
		}
	}
}
