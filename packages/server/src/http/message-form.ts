import {
	As2Error,
	ByteReader,
	parseContentType,
	parseHeaderParams,
	readHeaderBlock,
	readMultipart,
	toChunks,
} from "@as2kit/core";
import type { BlobInfo, BlobStore } from "@as2kit/core/store";
import { fromForm } from "./body.ts";

/** Text fields of the form: small; the payload is the `file` part. */
const MAX_FIELD_BYTES = 64 * 1024;
const MAX_PARTS = 100;

export interface MessageForm {
	fields: Record<string, unknown>;
	file: { blob: BlobInfo; filename: string | null; contentType: string | null } | null;
}

/**
 * Reads a `multipart/form-data` message upload (decisions.md: the file part is `file`) as a
 * stream: the file goes straight into the blob store, never whole in memory, and fails with
 * 413 PAYLOAD_TOO_LARGE the moment it crosses `maxBytes`; the other parts are small text
 * fields. Parts may come in any order.
 */
export async function readMessageForm(
	request: Request,
	options: { blobs: BlobStore; maxBytes: number; newKey: () => string },
): Promise<MessageForm> {
	const boundary = parseContentType(request.headers.get("content-type") ?? "").params.boundary;
	if (!boundary || !request.body)
		throw new As2Error("VALIDATION_FAILED", "a multipart/form-data body with a boundary is required");
	const pairs: [string, string][] = [];
	let file: MessageForm["file"] = null;
	try {
		for await (const part of readMultipart(toChunks(request.body), boundary, { maxParts: MAX_PARTS })) {
			const reader = new ByteReader(part.raw);
			const { headers } = await readHeaderBlock(reader);
			const disposition = parseHeaderParams(headers.get("content-disposition") ?? "");
			const name = disposition.params.name;
			if (disposition.value.toLowerCase() !== "form-data" || !name) {
				throw fieldError("request", "every part needs Content-Disposition: form-data; name=…");
			}
			if (name === "file") {
				if (file) throw fieldError("file", "must be sent once");
				const blob = await options.blobs.put(options.newKey(), reader.rest(), {
					maxBytes: options.maxBytes,
				});
				file = {
					blob,
					filename: disposition.params.filename ?? null,
					contentType: headers.get("content-type") ?? null,
				};
				continue;
			}
			let text = "";
			let size = 0;
			const decoder = new TextDecoder();
			for await (const chunk of reader.rest()) {
				size += chunk.byteLength;
				if (size > MAX_FIELD_BYTES) throw fieldError(name, `is longer than ${MAX_FIELD_BYTES} bytes`);
				text += decoder.decode(chunk, { stream: true });
			}
			pairs.push([name, text + decoder.decode()]);
		}
	} catch (error) {
		if (file) await options.blobs.delete(file.blob.key).catch(() => {});
		throw error;
	}
	return { fields: fromForm(pairs), file };
}

function fieldError(field: string, message: string): As2Error {
	return new As2Error("VALIDATION_FAILED", `${field} ${message}`, { fieldErrors: { [field]: [message] } });
}
