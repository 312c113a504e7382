import { concatBytes } from "../bytes/index.ts";
import { As2Error } from "../errors/index.ts";
import { type MimeHeaders, parseHeaderBlock, serializeHeaders } from "./header.ts";
import { DEFAULT_MAX_HEADER_BYTES, HeaderEndScanner } from "./read-headers.ts";

export interface ParseMimeEntityOptions {
	/** Largest header block accepted, blank line included (default 64 KiB). */
	maxHeaderBytes?: number;
}

/**
 * Splits a small, fully buffered MIME entity into its headers and its body (the raw bytes after
 * the blank line, not transfer-decoded). Same tolerance as {@link readHeaderBlock}; use the
 * streaming reader for payloads.
 *
 * @example
 * const { headers, body } = parseMimeEntity(latin1("Content-Type: text/plain\r\n\r\nhello"));
 */
export function parseMimeEntity(
	bytes: Uint8Array,
	opts: ParseMimeEntityOptions = {},
): { headers: MimeHeaders; body: Uint8Array } {
	const maxBytes = opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
	const scanner = new HeaderEndScanner();
	const window = bytes.subarray(0, maxBytes);
	let end = scanner.push(window);
	if (end < 0) {
		if (bytes.byteLength > maxBytes) {
			throw new As2Error("MALFORMED_MIME", `MIME header block is longer than ${maxBytes} bytes`);
		}
		if (!scanner.atLineStart) throw new As2Error("MALFORMED_MIME", "MIME header block is cut off inside a header line");
		end = bytes.byteLength;
	}
	return { headers: parseHeaderBlock(bytes.subarray(0, end)), body: bytes.subarray(end) };
}

/**
 * Header block, blank line, body.
 *
 * @example
 * serializeMimeEntity(new MimeHeaders([["Content-Type", "text/plain"]]), utf8("hello"));
 */
export function serializeMimeEntity(headers: MimeHeaders | Iterable<[string, string]>, body: Uint8Array): Uint8Array {
	return concatBytes([serializeHeaders(headers), CRLF, body]);
}

const CRLF = Uint8Array.of(0x0d, 0x0a);
