import {
	As2Error,
	ByteReader,
	parseContentType,
	parseHeaderParams,
	readHeaderBlock,
	readMultipart,
	toChunks,
} from "@as2kit/core";
import { fromForm } from "./body.ts";

const MAX_FIELD_BYTES = 64 * 1024;
const MAX_PARTS = 100;

/**
 * Reads a `multipart/form-data` body whose part `document` (a file or a text field) is an
 * EPCIS document: that part is handed to `onDocument` as a stream while it arrives, never
 * held whole, and fails with 413 PAYLOAD_TOO_LARGE past `maxBytes`; the other parts are small
 * text fields, given to `onDocument` as far as they came before the document and returned
 * whole at the end.
 */
export async function readEpcisForm<T>(
	request: Request,
	options: {
		maxBytes: number;
		onDocument: (document: AsyncIterable<Uint8Array>, fieldsBefore: Record<string, unknown>) => Promise<T>;
	},
): Promise<{ fields: Record<string, unknown>; result: T | undefined }> {
	const boundary = parseContentType(request.headers.get("content-type") ?? "").params.boundary;
	if (!boundary || !request.body)
		throw new As2Error("VALIDATION_FAILED", "a multipart/form-data body with a boundary is required");
	const pairs: [string, string][] = [];
	let result: T | undefined;
	let seen = false;
	for await (const part of readMultipart(toChunks(request.body), boundary, { maxParts: MAX_PARTS })) {
		const reader = new ByteReader(part.raw);
		const { headers } = await readHeaderBlock(reader);
		const disposition = parseHeaderParams(headers.get("content-disposition") ?? "");
		const name = disposition.params.name;
		if (disposition.value.toLowerCase() !== "form-data" || !name) {
			throw fieldError("request", "every part needs Content-Disposition: form-data; name=…");
		}
		if (name === "document") {
			if (seen) throw fieldError("document", "must be sent once");
			seen = true;
			result = await options.onDocument(capped(reader.rest(), options.maxBytes), fromForm(pairs));
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
	return { fields: fromForm(pairs), result };
}

async function* capped(chunks: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
	let size = 0;
	for await (const chunk of chunks) {
		size += chunk.byteLength;
		if (size > maxBytes) {
			throw new As2Error("PAYLOAD_TOO_LARGE", `the document exceeds the plan's ${maxBytes} bytes`, {
				details: { max_bytes: maxBytes },
			});
		}
		yield chunk;
	}
}

function fieldError(field: string, message: string): As2Error {
	return new As2Error("VALIDATION_FAILED", `${field} ${message}`, { fieldErrors: { [field]: [message] } });
}
