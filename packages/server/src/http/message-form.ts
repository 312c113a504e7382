import type { BlobInfo, BlobStore } from "@as2kit/core/store";
import { fieldError } from "../service/validation-error.ts";
import { fromForm } from "./body.ts";
import { readFormParts, readTextField } from "./form-parts.ts";

export interface MessageForm {
	fields: Record<string, unknown>;
	file: { blob: BlobInfo; filename: string | null; contentType: string | null } | null;
}

/**
 * Reads a `multipart/form-data` message upload (decisions.md: the file part is `file`) as a
 * stream: the file goes straight into the blob store, never whole in memory, and fails with
 * 413 PAYLOAD_TOO_LARGE the moment it crosses `maxBytes`; the other parts are small text
 * fields. Parts may come in any order. Whatever fails, no blob is left behind.
 */
export async function readMessageForm(
	request: Request,
	options: { blobs: BlobStore; maxBytes: number; newKey: () => string },
): Promise<MessageForm> {
	const pairs: [string, string][] = [];
	let file: MessageForm["file"] = null;
	try {
		for await (const part of readFormParts(request)) {
			if (part.name !== "file") {
				pairs.push([part.name, await readTextField(part)]);
				continue;
			}
			if (file) throw fieldError("file", "must be sent once");
			const blob = await options.blobs.put(options.newKey(), part.body, { maxBytes: options.maxBytes });
			file = { blob, filename: part.filename, contentType: part.contentType };
		}
	} catch (error) {
		if (file) await options.blobs.delete(file.blob.key).catch(() => {});
		throw error;
	}
	return { fields: fromForm(pairs), file };
}
