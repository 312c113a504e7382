import { As2Error } from "@as2kit/core";

/**
 * The content types of the interface spec and the payload encoding each uses in JSON bodies
 * (POST /v1/messages: "Content type and encoding mapping"). Other well-formed MIME types are
 * accepted too, binary by default unless text/*, +xml or +json.
 */
const ENCODING_OF: Record<string, "utf-8" | "base64"> = {
	"application/edi-x12": "utf-8",
	"application/edifact": "utf-8",
	"application/xml": "utf-8",
	"application/json": "utf-8",
	"text/plain": "utf-8",
	"text/csv": "utf-8",
	"application/pdf": "base64",
	"application/zip": "base64",
	"image/png": "base64",
	"image/jpeg": "base64",
};

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MIME_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=("[^"\\r\\n]*"|${TOKEN}))*$`);

/** A well-formed `type/subtype` (with parameters); INVALID_CONTENT_TYPE otherwise. */
export function checkContentType(value: string): string {
	const trimmed = value.trim();
	if (!MIME_TYPE.test(trimmed) || trimmed.length > 255) {
		throw new As2Error("INVALID_CONTENT_TYPE", `${JSON.stringify(value.slice(0, 80))} is not a valid MIME type`, {
			fieldErrors: { content_type: ["is not a valid MIME type"] },
		});
	}
	return trimmed;
}

/** How a JSON payload's `content` is encoded when `payload.encoding` is not given. */
export function defaultEncoding(contentType: string): "utf-8" | "base64" {
	const base = contentType.split(";")[0]!.trim().toLowerCase();
	const known = ENCODING_OF[base];
	if (known) return known;
	return base.startsWith("text/") || base.endsWith("+xml") || base.endsWith("+json") ? "utf-8" : "base64";
}
