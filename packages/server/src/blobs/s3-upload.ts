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

/** Parts sent at once: with the one being filled, memory stays under three parts. */
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
	let held: Uint8Array[] = [];
	let heldBytes = 0;
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
			held.push(value);
			heldBytes += value.byteLength;
			while (heldBytes >= partBytes) {
				const whole = concatBytes(held);
				held = [whole.subarray(partBytes)];
				heldBytes = whole.byteLength - partBytes;
				await sendPart(whole.subarray(0, partBytes));
			}
		}
		const rest = held.length === 1 ? held[0]! : concatBytes(held);
		held = [];
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
