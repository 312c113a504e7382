import { type ByteSource, concatSources, latin1 } from "../bytes/index.ts";
import { type MimeHeaders, serializeHeaders } from "../mime/index.ts";

/** A MIME entity whose body streams: what each layer of {@link pack} wraps. */
export interface Entity {
	headers: MimeHeaders;
	body: ByteSource;
}

const CRLF = latin1("\r\n");

/** Headers, blank line, body (RFC 2045 §3), with the exact size known. */
export function serializeEntity(entity: Entity): ByteSource {
	return concatSources([serializeHeaders(entity.headers), CRLF, entity.body]);
}
