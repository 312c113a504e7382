import type { BlobStore } from "@as2kit/core/store";
import { S3Client } from "@aws-sdk/client-s3";
import { createS3BlobStore } from "./s3-blob-store.ts";
import type { S3Settings } from "./s3-settings.ts";

/** Every S3 request is bounded: connecting, waiting for the answer, and silence on the socket. */
export interface S3Timeouts {
	connectMs: number;
	answerMs: number;
	idleMs: number;
}

const DEFAULT_TIMEOUTS: S3Timeouts = { connectMs: 10_000, answerMs: 120_000, idleMs: 30_000 };

/**
 * The S3 blob store of `BLOB_URL`, with its client. The Node entry imports this module only
 * when `BLOB_URL` is set, so the AWS SDK is not loaded otherwise. No logger is given to the
 * client: nothing of a request (its signed headers) is written anywhere.
 */
export function openS3BlobStore(
	settings: S3Settings,
	timeouts: S3Timeouts = DEFAULT_TIMEOUTS,
): { blobs: BlobStore; close(): void } {
	const client = createS3Client(settings, timeouts);
	return {
		blobs: createS3BlobStore({ client, bucket: settings.bucket, prefix: settings.prefix }),
		close: () => client.destroy(),
	};
}

export function createS3Client(settings: S3Settings, timeouts: S3Timeouts = DEFAULT_TIMEOUTS): S3Client {
	return new S3Client({
		region: settings.region,
		...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
		...(settings.credentials ? { credentials: settings.credentials } : {}),
		requestHandler: {
			connectionTimeout: timeouts.connectMs,
			requestTimeout: timeouts.answerMs,
			throwOnRequestTimeout: true,
			socketTimeout: timeouts.idleMs,
		},
		// The SDK's default since 2025 adds CRC32 checksums (and aws-chunked bodies) that several
		// S3-compatible stores refuse; integrity is ours already (the SHA-256 of every payload).
		requestChecksumCalculation: "WHEN_REQUIRED",
		responseChecksumValidation: "WHEN_REQUIRED",
		maxAttempts: 3,
	});
}
