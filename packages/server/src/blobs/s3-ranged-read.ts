import type { Readable } from "node:stream";
import { GetObjectCommand, HeadObjectCommand, type HeadObjectCommandOutput, type S3Client } from "@aws-sdk/client-s3";
import { isS3NotFound, s3Call, toStoreError } from "./s3-errors.ts";

export interface ReadSource {
	client: S3Client;
	bucket: string;
	key: string;
	/** Bytes asked for per GET. */
	rangeBytes: number;
}

/** Times a read may fail in a row, resuming where it stopped, before the stream errors. */
const RESUMES_WITHOUT_PROGRESS = 2;

/**
 * An S3 object as a web stream, read in ranged GETs of `rangeBytes` one after another, each
 * only when the reader asks for more. A reader that stops early costs the rest of one range,
 * and its response body is destroyed, which frees the connection. A body that breaks midway
 * (the socket timeout of a slow reader, a reset) is resumed from the byte where it stopped.
 * Every GET carries If-Match with the ETag of the HEAD before, so the bytes all come from one
 * version of the object.
 * Null when there is no object.
 */
export async function readRanged(source: ReadSource): Promise<ReadableStream<Uint8Array> | null> {
	const { client, bucket, key, rangeBytes } = source;
	// The size and version first: a range of an empty object is not satisfiable (S3 answers 416,
	// s3rver never answers), and every range below is asked of this one version.
	let head: HeadObjectCommandOutput;
	try {
		head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
	} catch (error) {
		if (isS3NotFound(error)) return null;
		throw toStoreError(error, "read the payload");
	}
	const total = head.ContentLength ?? 0;
	const etag = head.ETag;
	const fetchRange = (start: number) =>
		client.send(
			new GetObjectCommand({
				Bucket: bucket,
				Key: key,
				Range: `bytes=${start}-${Math.min(start + rangeBytes, total) - 1}`,
				IfMatch: etag,
			}),
		);
	let body: Readable | null = null;
	let chunks: AsyncIterator<Buffer> | null = null;
	let position = 0;
	let failures = 0;
	let cancelled = false;
	const dropBody = () => {
		body?.destroy();
		body = null;
		chunks = null;
	};

	return new ReadableStream<Uint8Array>(
		{
			async pull(controller) {
				for (;;) {
					if (cancelled) return;
					if (!chunks) {
						if (position >= total) return controller.close();
						try {
							const next = await s3Call("read the payload", () => fetchRange(position));
							if (cancelled) return void (next.Body as Readable).destroy();
							body = next.Body as Readable;
							chunks = body[Symbol.asyncIterator]();
						} catch (error) {
							return controller.error(error);
						}
					}
					try {
						const { done, value } = await chunks.next();
						if (cancelled) return;
						if (done) {
							dropBody();
							continue;
						}
						position += value.byteLength;
						failures = 0;
						controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
						return;
					} catch (error) {
						dropBody();
						if (cancelled) return;
						if (++failures > RESUMES_WITHOUT_PROGRESS) return controller.error(toStoreError(error, "read the payload"));
					}
				}
			},
			cancel() {
				cancelled = true;
				dropBody();
			},
		},
		{ highWaterMark: 0 },
	);
}
