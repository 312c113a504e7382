/**
 * The little MIME the OpenSSL peer needs, written for it alone (never our own parser, so the
 * peer stays independent): an entity's header block, the parts of a multipart body split at
 * the boundary its Content-Type names (RFC 2046 §5.1.1), and MDN reports (RFC 3798, RFC 4130
 * §7.4.3) built and read as text.
 */
const CRLF = "\r\n";

export interface Entity {
	/** Header names lower-cased, folded lines joined (RFC 5322 §2.2.3). */
	headers: Record<string, string>;
	body: Buffer;
}

/** Splits an entity at its first empty line (CRLF or, from a damaged sender, bare LF). */
export function parseEntity(bytes: Buffer): Entity {
	const text = bytes.toString("latin1");
	const crlf = text.indexOf("\r\n\r\n");
	const lf = text.indexOf("\n\n");
	const [end, gap] = crlf >= 0 && (lf < 0 || crlf < lf) ? [crlf, 4] : [lf, 2];
	if (end < 0) return { headers: {}, body: bytes };
	const headers: Record<string, string> = {};
	for (const line of text
		.slice(0, end)
		.replace(/\r?\n[ \t]+/g, " ")
		.split(/\r?\n/)) {
		const colon = line.indexOf(":");
		if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
	}
	return { headers, body: bytes.subarray(end + gap) };
}

/** A parameter of a header value (`boundary`, `micalg`, `smime-type` …), unquoted. */
export function headerParam(value: string, name: string): string | undefined {
	const match = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, "i").exec(value);
	return match ? (match[1] ?? match[2]) : undefined;
}

/** The media type of a Content-Type value, lower-cased. */
export function mediaType(value: string | undefined): string {
	return (value ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * The body parts of a multipart body, exact bytes, split at the delimiter lines of `boundary`:
 * a preamble before the first and an epilogue after the last are skipped (RFC 2046 §5.1.1).
 * The CRLF (or LF) before each delimiter belongs to the delimiter, not to the part.
 */
export function multipartParts(body: Buffer, boundary: string): Buffer[] {
	const text = body.toString("latin1");
	const delimiter = new RegExp(
		`(^|\\r?\\n)--${boundary.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(--)?[ \\t]*\\r?\\n?`,
		"g",
	);
	const parts: Buffer[] = [];
	let start = -1;
	for (let match = delimiter.exec(text); match; match = delimiter.exec(text)) {
		if (start >= 0) parts.push(body.subarray(start, match.index));
		if (match[2]) break;
		start = match.index + match[0].length;
	}
	return parts;
}

/** The body decoded per its Content-Transfer-Encoding (base64 or identity). */
export function decodedBody(entity: Entity): Buffer {
	if ((entity.headers["content-transfer-encoding"] ?? "").toLowerCase() === "base64") {
		return Buffer.from(entity.body.toString("latin1").replace(/\s+/g, ""), "base64");
	}
	return entity.body;
}

/** Base64 in 76-character lines, CRLF between, as MIME writes it (RFC 2045 §6.8). */
export function base64Lines(bytes: Buffer): string {
	return (bytes.toString("base64").match(/.{1,76}/g) ?? []).join(CRLF);
}

/** The `Disposition-Notification-Options` MIC algorithms, as OpenSSL names them (`sha-256` → `sha256`). */
export function requestedMicAlgorithms(options: string | undefined): string[] {
	const list = /signed-receipt-micalg\s*=\s*(?:required|optional)\s*,([^;]*)/i.exec(options ?? "")?.[1] ?? "";
	return list
		.split(",")
		.map((name) => name.trim().toLowerCase().replace(/[-_]/g, ""))
		.filter(Boolean);
}

export interface MdnReport {
	originalMessageId: string;
	/** `processed`, or `processed/error: …`, `failed/…`: what follows the action modes. */
	disposition: string;
	/** The Received-Content-MIC field as written; null when absent. */
	receivedContentMic: string | null;
	/** The report's first (human-readable) part. */
	text: string;
}

/** Reads a multipart/report entity (with its header block): the disposition fields. */
export function readMdnReport(report: Buffer): MdnReport {
	const entity = parseEntity(report);
	const boundary = headerParam(entity.headers["content-type"] ?? "", "boundary");
	const parts = boundary ? multipartParts(entity.body, boundary) : [];
	const fieldsPart = parts
		.map(parseEntity)
		.find((part) => mediaType(part.headers["content-type"]) === "message/disposition-notification");
	if (!fieldsPart) throw new Error(`not a disposition-notification report:\n${report.toString("latin1")}`);
	const fields = parseEntity(Buffer.concat([decodedBody(fieldsPart), Buffer.from("\r\n\r\n")])).headers;
	return {
		originalMessageId: (fields["original-message-id"] ?? "").replace(/^<|>$/g, ""),
		disposition: (fields.disposition ?? "").replace(/^[^;]*;\s*/, ""),
		receivedContentMic: fields["received-content-mic"] ?? null,
		text: parts[0] ? parseEntity(parts[0]).body.toString("latin1") : "",
	};
}

/** A multipart/report with its header block, CRLF throughout (RFC 3798 §3, RFC 4130 §7.4.3). */
export function buildMdnReport(fields: {
	from: string;
	originalMessageId: string;
	disposition: string;
	mic: string | null;
}): Buffer {
	const boundary = "openssl-peer-report";
	return Buffer.from(
		[
			`Content-Type: multipart/report; report-type=disposition-notification; boundary="${boundary}"`,
			"",
			`--${boundary}`,
			"Content-Type: text/plain",
			"",
			`The AS2 message <${fields.originalMessageId}> was received by the OpenSSL peer.`,
			`--${boundary}`,
			"Content-Type: message/disposition-notification",
			"",
			"Reporting-UA: as2kit OpenSSL CLI test peer",
			`Original-Recipient: rfc822; ${fields.from}`,
			`Final-Recipient: rfc822; ${fields.from}`,
			`Original-Message-ID: <${fields.originalMessageId}>`,
			...(fields.mic ? [`Received-Content-MIC: ${fields.mic}`] : []),
			`Disposition: automatic-action/MDN-sent-automatically; ${fields.disposition}`,
			"",
			`--${boundary}--`,
			"",
		].join(CRLF),
		"latin1",
	);
}

/**
 * A multipart/signed body around `content` (an entity with its headers) and a detached DER
 * signature (RFC 1847 §2.1): the body, and the Content-Type that names its boundary.
 */
export function multipartSigned(
	content: Buffer,
	signature: Buffer,
	micalg: string,
	boundary = "openssl-peer-signed",
): { contentType: string; body: Buffer } {
	return {
		contentType: `multipart/signed; protocol="application/pkcs7-signature"; micalg=${micalg}; boundary="${boundary}"`,
		body: Buffer.concat([
			Buffer.from(`--${boundary}${CRLF}`, "latin1"),
			content,
			Buffer.from(
				[
					"",
					`--${boundary}`,
					"Content-Type: application/pkcs7-signature; name=smime.p7s",
					"Content-Transfer-Encoding: base64",
					'Content-Disposition: attachment; filename="smime.p7s"',
					"",
					base64Lines(signature),
					`--${boundary}--`,
					"",
				].join(CRLF),
				"latin1",
			),
		]),
	};
}
