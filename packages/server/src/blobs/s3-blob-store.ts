import { createHash } from "node:crypto";
import type { BlobInfo, BlobStore } from "@as2kit/core/store";
import { DeleteObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { s3Call } from "./s3-errors.ts";
import { readRanged } from "./s3-ranged-read.ts";
import { uploadStreamed } from "./s3-upload.ts";

export interface S3BlobStoreOptions {
	client: S3Client;
	bucket: string;
	/** Prepended to every key: `payloads/` keeps the blobs under one folder of a shared bucket. */
	prefix?: string;
	/**
	 * Bytes per multipart part: S3's minimum (5 MiB) by default. Three parts are in memory per
	 * upload under way (two sent, one filling), so smaller is leaner; 10,000 parts of 5 MiB
	 * still hold 48 GiB, well over the largest plan's payload.
	 */
	partBytes?: number;
	/** Bytes per ranged GET. */
	rangeBytes?: number;
}

const MIB = 1024 * 1024;

/**
 * Payload blobs as objects of an S3-compatible bucket (`BLOB_URL=s3://bucket/prefix`), so that
 * several instances share them without a shared filesystem. Uploads stream as multipart
 * uploads and reads as ranged GETs: memory stays a few parts whatever the payload's size.
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
	const { client, bucket, prefix = "", partBytes = 5 * MIB, rangeBytes = 8 * MIB } = options;
	const objectKey = (key: string) => {
		if (key === "") throw new Error("empty blob key");
		return prefix + key;
	};
	const store: BlobStore = {
		async put(key, body, putOptions = {}) {
			const { bytes, sha256 } = await uploadStreamed(
				{ client, bucket, key: objectKey(key), partBytes },
				body,
				putOptions.maxBytes,
			);
			return { key, bytes, sha256 };
		},

		get: (key) => readRanged({ client, bucket, key: objectKey(key), rangeBytes }),

		// As in the filesystem store, the digest is computed again by reading the object: put
		// returned it to the caller, who records it, and stat is rare.
		async stat(key): Promise<BlobInfo | null> {
			const stream = await store.get(key);
			if (!stream) return null;
			const hash = createHash("sha256");
			let bytes = 0;
			const reader = stream.getReader();
			for (let read = await reader.read(); !read.done; read = await reader.read()) {
				hash.update(read.value);
				bytes += read.value.byteLength;
			}
			return { key, bytes, sha256: hash.digest("hex") };
		},

		async delete(key) {
			await s3Call("delete the payload", () =>
				client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) })),
			);
		},
	};
	return store;
}
