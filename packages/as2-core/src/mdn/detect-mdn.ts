import { ByteReader, type Chunks } from "../bytes/index.ts";
import { decodeTransferEncoding, parseContentType, readHeaderBlock, readMultipart } from "../mime/index.ts";

/** How much of a multipart/signed body is read to find its first part's Content-Type. */
export const MDN_DETECTION_BYTES = 16 * 1024;

/**
 * Whether an AS2 request with this Content-Type and body is an MDN (RFC 4130 §7.4) rather
 * than a message: a multipart/report, or a multipart/signed whose first body part is one.
 *
 * The signed body is parsed with the boundary its Content-Type names (RFC 2046 §5.1.1), so a
 * preamble is skipped, never searched: OpenAS2 4.9 opens its signed async MDN with the
 * entity's own `Content-Type: multipart/signed; …boundary="----=_Part_…"` header block, where
 * the first `--` lies inside the quoted boundary (issue #17, defect 5). Reads at most
 * {@link MDN_DETECTION_BYTES} of preamble and of header block; anything unreadable within
 * that is not an MDN, and is left to the message reader to refuse.
 *
 * `transferEncoding` is the request's own Content-Transfer-Encoding: Orderful's axios client
 * base64-encodes the whole HTTP body of its async MDNs and says so in the HTTP headers
 * (OpenAs2App#299, as2-anchors §C10), so the structure is read after decoding it.
 */
export async function isMdnEntity(
	contentType: string | undefined,
	body: Chunks,
	transferEncoding?: string,
): Promise<boolean> {
	if (!contentType) return false;
	const { mediaType, params } = parseContentType(contentType);
	if (mediaType === "multipart/report") return true;
	if (mediaType !== "multipart/signed" || !params.boundary) return false;
	try {
		const parts = readMultipart(decodeTransferEncoding(transferEncoding, body), params.boundary, {
			maxPreambleBytes: MDN_DETECTION_BYTES,
		});
		const first = await parts[Symbol.asyncIterator]().next();
		if (first.done) return false;
		const { headers } = await readHeaderBlock(new ByteReader(first.value.raw), { maxBytes: MDN_DETECTION_BYTES });
		return parseContentType(headers.get("content-type") ?? "").mediaType === "multipart/report";
	} catch {
		return false;
	}
}
