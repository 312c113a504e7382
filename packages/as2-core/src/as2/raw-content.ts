import { MimeHeaders } from "../mime/index.ts";

/** How much of a decrypted or decompressed content is looked at to decide what it is. */
export const FIRST_LINE_BYTES = 256;

/**
 * A header field line as senders write one: `name: value` (or `name:` with nothing after), or
 * a MIME field written without the space. `UNA:+.? '` has a field-name-like `UNA:` but is no
 * header: a colon followed by data is taken as a field only for MIME's own field names.
 */
const HEADER_FIELD_LINE = /^(?:[A-Za-z0-9-]+:(?:[ \t]|\r?$)|(?:content-[A-Za-z0-9-]+|mime-version):)/i;

/**
 * Whether the content of an encrypted, compressed or opaque-signed layer begins a MIME entity
 * (RFC 5751 §3.1) or is the raw payload. mendelson (unsigned, 3DES) may put the bare file in
 * EnvelopedData (issue #17, defect 4). Decided on the first line only: a header field or an
 * empty line begins an entity; anything else — `UNA:+.? '`, `UNB+…`, `ISA*…`, `<?xml` — is
 * raw content. So a real entity with a malformed header further down is still refused as
 * MALFORMED_MIME, not delivered as a payload with its headers in it.
 */
export function startsMimeEntity(head: Uint8Array): boolean {
	const lineEnd = head.indexOf(0x0a);
	const line = Buffer.from(head.buffer, head.byteOffset, lineEnd < 0 ? head.byteLength : lineEnd).toString("latin1");
	return line === "" || line === "\r" || HEADER_FIELD_LINE.test(line);
}

/**
 * The headers of raw content: `application/octet-stream`. The only declared type there is the
 * layer's own (a CMS type, `application/pkcs7-mime`), which says nothing of the payload.
 */
export function rawContentHeaders(): MimeHeaders {
	const headers = new MimeHeaders();
	headers.set("Content-Type", "application/octet-stream");
	return headers;
}
