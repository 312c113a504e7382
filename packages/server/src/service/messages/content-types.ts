import { As2Error } from "@as2kit/core";

/**
 * The content types a message may be sent as, and the payload encoding each uses in JSON
 * bodies: the interface spec's list (POST /v1/messages, "Content type and encoding mapping"),
 * and `application/edi-consent`, the third EDI type of RFC 1767 that RFC 4130 §1 names beside
 * X12 and EDIFACT. Anything else is 400 INVALID_CONTENT_TYPE, for JSON and multipart sends
 * alike (issue #16: `application/x-msdownload` was queued).
 */
const ENCODING_OF: Record<string, "utf-8" | "base64"> = {
	"application/edi-x12": "utf-8",
	"application/edifact": "utf-8",
	"application/edi-consent": "utf-8",
	"application/xml": "utf-8",
	"application/json": "utf-8",
	"text/plain": "utf-8",
	"text/csv": "utf-8",
	"application/pdf": "base64",
	"application/zip": "base64",
	"image/png": "base64",
	"image/jpeg": "base64",
};

/** The supported types, for documentation. */
export const SUPPORTED_CONTENT_TYPES = Object.keys(ENCODING_OF);

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MIME_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=("[^"\\r\\n]*"|${TOKEN}))*$`);

/**
 * A well-formed `type/subtype` (parameters allowed, e.g. `; charset=utf-8`) of a supported
 * type, as given; INVALID_CONTENT_TYPE otherwise.
 */
export function checkContentType(value: string): string {
	const trimmed = value.trim();
	if (!MIME_TYPE.test(trimmed) || trimmed.length > 255) {
		throw new As2Error("INVALID_CONTENT_TYPE", `${JSON.stringify(value.slice(0, 80))} is not a valid MIME type`, {
			fieldErrors: { content_type: ["is not a valid MIME type"] },
		});
	}
	if (!Object.hasOwn(ENCODING_OF, baseType(trimmed))) {
		throw new As2Error(
			"INVALID_CONTENT_TYPE",
			`${baseType(trimmed)} is not a supported content type; use one of ${SUPPORTED_CONTENT_TYPES.join(", ")}`,
			{ fieldErrors: { content_type: ["is not a supported content type"] } },
		);
	}
	return trimmed;
}

/** How a JSON payload's `content` is encoded when `payload.encoding` is not given. */
export function defaultEncoding(contentType: string): "utf-8" | "base64" {
	return Object.hasOwn(ENCODING_OF, baseType(contentType)) ? ENCODING_OF[baseType(contentType)]! : "base64";
}

function baseType(contentType: string): string {
	return contentType.split(";")[0]!.trim().toLowerCase();
}
