import {
	ByteReader,
	isAs2Error,
	parseContentType,
	parseHeaderParams,
	readHeaderBlock,
	readMultipart,
	toChunks,
} from "@as2kit/core";
import { fieldError } from "../service/validation-error.ts";
import { cutOff, malformedForm } from "./body-read-errors.ts";

/** More parts than this is not a form a client of ours sends. */
const MAX_PARTS = 100;
/** A part's header block carries Content-Disposition and Content-Type: a few hundred bytes. */
const MAX_PART_HEADER_BYTES = 16 * 1024;
/** Text fields of a form are small; payloads come in file parts. */
const MAX_FIELD_BYTES = 64 * 1024;
/**
 * The most a form may carry besides one file's bytes: its other parts, their headers and the
 * delimiters (a boundary is at most 70 characters, RFC 2046 §5.1.1). A Content-Length beyond a
 * file limit plus this is over the limit before a byte is read.
 */
export const MAX_FORM_OVERHEAD_BYTES = MAX_PARTS * (MAX_PART_HEADER_BYTES + MAX_FIELD_BYTES + 2 * (70 + 6));

export interface FormPart {
	/** The `name` of its `Content-Disposition: form-data`. */
	name: string;
	/**
	 * Its `filename`, decoded: the RFC 2231 form first, else the quoted one as UTF-8 when its
	 * bytes are valid UTF-8 (what browsers and curl send, RFC 7578 §4.2), Latin-1 otherwise.
	 */
	filename: string | null;
	contentType: string | null;
	/** Its bytes, readable once, before the next part is asked for. */
	body: AsyncIterable<Uint8Array>;
}

/**
 * The parts of a `multipart/form-data` request as they stream in, never held whole. A body
 * that is not a well-formed form (no or a wrong boundary, cut off before the close delimiter,
 * more than 100 parts, oversized part headers, a part without a name) is a 422 naming the
 * problem — the client's request is invalid; MALFORMED_MIME (400 transmission_error) is for
 * what partners send over AS2. A body the client stopped sending midway is a 422 as well.
 */
export async function* readFormParts(request: Request): AsyncGenerator<FormPart> {
	try {
		const boundary = parseContentType(request.headers.get("content-type") ?? "").params.boundary;
		if (!boundary || !request.body) throw fieldError("request", "must be a multipart/form-data body with a boundary");
		for await (const part of readMultipart(bodyOf(request.body), boundary, { maxParts: MAX_PARTS })) {
			const reader = new ByteReader(part.raw);
			const { headers } = await readHeaderBlock(reader, { maxBytes: MAX_PART_HEADER_BYTES });
			const disposition = parseHeaderParams(headers.get("content-disposition") ?? "");
			const name = disposition.params.name;
			if (disposition.value.toLowerCase() !== "form-data" || !name) {
				throw fieldError("request", "every part needs Content-Disposition: form-data; name=…");
			}
			yield {
				name,
				filename: disposition.params.filename || null,
				contentType: headers.get("content-type") ?? null,
				body: asFormErrors(reader.rest()),
			};
		}
	} catch (error) {
		throw toFormError(error);
	}
}

/** A text field's value (UTF-8), up to 64 KiB. */
export async function readTextField(part: FormPart): Promise<string> {
	let text = "";
	let size = 0;
	const decoder = new TextDecoder();
	for await (const chunk of part.body) {
		size += chunk.byteLength;
		if (size > MAX_FIELD_BYTES) throw fieldError(part.name, `is longer than ${MAX_FIELD_BYTES} bytes`);
		text += decoder.decode(chunk, { stream: true });
	}
	return text + decoder.decode();
}

/** The request body; a read that fails (the client reset or closed the connection) is a 422. */
async function* bodyOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
	try {
		yield* toChunks(body);
	} catch (error) {
		throw isAs2Error(error) ? error : cutOff(error);
	}
}

async function* asFormErrors(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
	try {
		yield* chunks;
	} catch (error) {
		throw toFormError(error);
	}
}

function toFormError(error: unknown): unknown {
	return isAs2Error(error) && error.code === "MALFORMED_MIME" ? malformedForm(error.message, error) : error;
}
