import { As2Error } from "@as2kit/core";
import { fieldError } from "../service/validation-error.ts";
import { fromForm } from "./body.ts";
import { readFormParts, readTextField } from "./form-parts.ts";

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
	const pairs: [string, string][] = [];
	let result: T | undefined;
	let seen = false;
	for await (const part of readFormParts(request)) {
		if (part.name !== "document") {
			pairs.push([part.name, await readTextField(part)]);
			continue;
		}
		if (seen) throw fieldError("document", "must be sent once");
		seen = true;
		result = await options.onDocument(capped(part.body, options.maxBytes), fromForm(pairs));
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
