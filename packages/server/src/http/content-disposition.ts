/**
 * `Content-Disposition: attachment` for a download (RFC 6266). The quoted `filename` is an
 * ASCII stand-in every client reads; when the real name needs more than that, `filename*`
 * carries it in UTF-8 (RFC 8187), which clients prefer when they understand it.
 *
 * @example
 * attachmentDisposition("Rechnung März.pdf");
 * // attachment; filename="Rechnung M_rz.pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf
 */
export function attachmentDisposition(filename: string): string {
	const name = baseName(filename);
	// RFC 6266 Appendix D: no backslash or quote in the quoted form, and no "%" (some
	// clients percent-decode it); controls and non-ASCII have no place there either.
	const fallback = name.replace(/[^\x20-\x7e]|["\\%]/gu, "_");
	if (fallback === name) return `attachment; filename="${name}"`;
	return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(name)}`;
}

/** A name for a payload stored without one: the message id and an extension for its type. */
export function defaultPayloadName(messageId: string, contentType: string): string {
	const type = contentType.split(";")[0]!.trim().toLowerCase();
	return `${messageId}${EXTENSIONS[type] ?? ".bin"}`;
}

/** The stored content type when it is a well-formed header value, else `application/octet-stream`. */
export function payloadContentType(contentType: string): string {
	return /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;[\x20-\x7e]*)?$/.test(contentType)
		? contentType
		: "application/octet-stream";
}

const EXTENSIONS: Record<string, string> = {
	"application/edi-x12": ".x12",
	"application/edifact": ".edi",
	"application/edi-consent": ".edi",
	"application/xml": ".xml",
	"text/xml": ".xml",
	"application/json": ".json",
	"text/plain": ".txt",
	"text/csv": ".csv",
	"application/pdf": ".pdf",
	"application/zip": ".zip",
	"image/png": ".png",
	"image/jpeg": ".jpg",
};

/** A file name never carries a directory; an empty or dot-only one is no name. */
function baseName(filename: string): string {
	const name = filename.split(/[/\\]/).pop()!.trim();
	return /^\.*$/.test(name) ? "payload" : name;
}

/** RFC 8187 §3.2.1: everything but attr-char is percent-encoded, in UTF-8 (a lone surrogate as U+FFFD). */
function encodeExtValue(value: string): string {
	const wellFormed = value.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
	return encodeURIComponent(wellFormed).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}
