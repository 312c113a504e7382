/**
 * The octets of a header string: one per char when every char is a Latin-1 octet (how header
 * bytes are read, see parseHeaderBlock and Node's HTTP parser), else its UTF-8 encoding.
 */
export function stringBytes(text: string): Uint8Array {
	return /[^\0-\xff]/.test(text) ? Buffer.from(text, "utf8") : Buffer.from(text, "latin1");
}

/**
 * Text from the octets of a header parameter (RFC 2231) or an encoded-word (RFC 2047) in the
 * charset they name (lower case); unnamed, UTF-8 when they are valid UTF-8 and Latin-1
 * otherwise. An unknown charset reads as Latin-1, so every octet survives as one char.
 */
export function decodeCharset(bytes: Uint8Array, charset: string | undefined): string {
	const latin1 = () => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
	switch (charset) {
		case "iso-8859-1":
		case "latin1":
		case "us-ascii":
			// The WHATWG decoder maps these labels to windows-1252; RFC 2231 means ISO-8859-1.
			return latin1();
		case undefined:
			// No charset named: UTF-8 when the bytes are valid UTF-8, else one char per octet.
			try {
				return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
			} catch {
				return latin1();
			}
		default:
			try {
				return new TextDecoder(charset).decode(bytes);
			} catch {
				return latin1();
			}
	}
}
