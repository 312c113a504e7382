import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Bytes as three real partners put them on the wire (issue #17, defects 1, 4 and 5), built
 * with the OpenSSL CLI and MIME assembled by hand the way each implementation writes it, so
 * no code of ours shapes them. Files go to `dir` (the caller's scratch directory).
 */
export interface Signer {
	certPath: string;
	keyPath: string;
}

export interface WireMessage {
	headers: Record<string, string>;
	body: Buffer;
}

const CRLF = "\r\n";
const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "pipe", "pipe"] });

/** A digest as `openssl cms -md` names it. */
export type OpensslDigest = "sha1" | "sha256" | "sha384" | "sha512";

/** A detached CMS signature (with signed attributes, OpenSSL's default) over `content`, DER. */
function detachedSignature(
	dir: string,
	name: string,
	content: Buffer,
	signer: Signer,
	digest: OpensslDigest = "sha256",
): Buffer {
	const input = join(dir, `${name}.content`);
	const output = join(dir, `${name}.p7s`);
	writeFileSync(input, content);
	openssl([
		"cms",
		"-sign",
		"-binary",
		"-in",
		input,
		"-signer",
		signer.certPath,
		"-inkey",
		signer.keyPath,
		"-md",
		digest,
		"-outform",
		"DER",
		"-out",
		output,
	]);
	return readFileSync(output);
}

/** Base64 in lines of 76 characters, as Python's email.encoders and JavaMail write it. */
function base64Lines(bytes: Buffer): string {
	return (bytes.toString("base64").match(/.{1,76}/g) ?? []).join(CRLF);
}

export interface MdnFields {
	/** Our AS2 id (the MDN goes to us) and the partner's. */
	to: string;
	from: string;
	/** The Message-ID of our message, without angle brackets. */
	originalMessageId: string;
	/** Received-Content-MIC, when the partner returns one. */
	mic?: string;
}

/**
 * pyas2-lib 1.4.4 `Mdn.build` (pyas2lib/as2.py): a multipart/report of a text/plain part and
 * the disposition fields, signed as multipart/signed with a base64 `smime.p7s` part carrying
 * `smime-type=signed-data`. Python's email boundaries (`===============<digits>==`), CRLF
 * line ends. For a message that was not signed, pyas2-lib computes no MIC and writes no
 * Received-Content-MIC line (issue #17, defect 1; as2-anchors §C6 pyas2-lib#19).
 */
export function pyas2SignedMdn(dir: string, fields: MdnFields, signer: Signer): WireMessage {
	const reportBoundary = "===============8165309384772951239==";
	const signedBoundary = "===============5920348183462611147==";
	const dispositionLines = [
		"Reporting-UA: pyAS2 Open Source AS2 Software",
		`Original-Recipient: rfc822; ${fields.from}`,
		`Final-Recipient: rfc822; ${fields.from}`,
		`Original-Message-ID: <${fields.originalMessageId}>`,
		"Disposition: automatic-action/MDN-sent-automatically; processed",
		...(fields.mic ? [`Received-content-MIC: ${fields.mic}`] : []),
	];
	const report = Buffer.from(
		[
			`Content-Type: multipart/report; report-type=disposition-notification;${CRLF} boundary="${reportBoundary}"`,
			"",
			`--${reportBoundary}`,
			'Content-Type: text/plain; charset="us-ascii"',
			"Content-Transfer-Encoding: 7bit",
			"",
			"The AS2 message has been received. Thank you for exchanging AS2 messages with pyAS2.",
			`--${reportBoundary}`,
			"Content-Type: message/disposition-notification",
			"Content-Transfer-Encoding: 7bit",
			"",
			dispositionLines.join(CRLF),
			`--${reportBoundary}--`,
			"",
		].join(CRLF),
		"latin1",
	);
	const signature = detachedSignature(dir, "pyas2-mdn", report, signer);
	const body = Buffer.concat([
		Buffer.from(`--${signedBoundary}${CRLF}`, "latin1"),
		report,
		Buffer.from(
			[
				"",
				`--${signedBoundary}`,
				'Content-Type: application/pkcs7-signature; name="smime.p7s"; smime-type=signed-data',
				"Content-Transfer-Encoding: base64",
				'Content-Disposition: attachment; filename="smime.p7s"',
				"",
				base64Lines(signature),
				`--${signedBoundary}--`,
				"",
			].join(CRLF),
			"latin1",
		),
	]);
	return {
		headers: {
			"AS2-Version": "1.2",
			"ediint-features": "CEM",
			"Message-ID": "<171234567890.12345.8472619347362819283@pyas2lib>",
			"AS2-From": fields.from,
			"AS2-To": fields.to,
			"Content-Type": `multipart/signed; protocol="application/pkcs7-signature"; micalg="sha-256"; boundary="${signedBoundary}"`,
			"user-agent": "pyAS2 Open Source AS2 Software",
		},
		body,
	};
}

/**
 * OpenAS2 4.9's signed async MDN (AS2ReceiverHandler / AsynchMDNSender): JavaMail boundaries
 * (`----=_Part_<n>_<hash>.<time>`), and the HTTP body opens with the signed entity's own
 * header block — `Content-Type: multipart/signed; …` folded onto a `boundary="…"` line — and
 * a blank line before the first delimiter, which RFC 2046 §5.1.1 makes a preamble (issue #17,
 * defect 5: 7 of 7 live async MDNs). A naive search for the first `--` lands inside that
 * quoted boundary.
 */
export function openas2AsyncMdn(dir: string, fields: MdnFields, signer: Signer): WireMessage {
	const reportBoundary = "----=_Part_2_1932718361.1764208800123";
	const signedBoundary = "----=_Part_3_462845713.1764208800456";
	const report = Buffer.from(
		[
			"Content-Type: multipart/report; report-type=disposition-notification; ",
			`\tboundary="${reportBoundary}"`,
			"",
			`--${reportBoundary}`,
			"Content-Type: text/plain",
			"Content-Transfer-Encoding: 7bit",
			"",
			"The message sent to Recipient <" +
				fields.from +
				"> on <date> with Subject <as2kit> has been received, " +
				"the EDI Interchange was successfully decrypted and it's integrity was verified.",
			`--${reportBoundary}`,
			"Content-Type: message/disposition-notification",
			"Content-Transfer-Encoding: 7bit",
			"",
			"Reporting-UA: OpenAS2 Server",
			`Original-Recipient: rfc822; ${fields.from}`,
			`Final-Recipient: rfc822; ${fields.from}`,
			`Original-Message-ID: <${fields.originalMessageId}>`,
			...(fields.mic ? [`Received-Content-MIC: ${fields.mic}`] : []),
			"Disposition: automatic-action/MDN-sent-automatically; processed",
			"",
			`--${reportBoundary}--`,
			"",
		].join(CRLF),
		"latin1",
	);
	const signature = detachedSignature(dir, "openas2-mdn", report, signer);
	const contentType = `multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256; ${CRLF}\tboundary="${signedBoundary}"`;
	const body = Buffer.concat([
		// The preamble: the entity's header block, repeated in the body.
		Buffer.from(`Content-Type: ${contentType}${CRLF}${CRLF}--${signedBoundary}${CRLF}`, "latin1"),
		report,
		Buffer.from(
			[
				"",
				`--${signedBoundary}`,
				"Content-Type: application/pkcs7-signature; name=smime.p7s; smime-type=signed-data",
				"Content-Transfer-Encoding: base64",
				'Content-Disposition: attachment; filename="smime.p7s"',
				"Content-Description: S/MIME Cryptographic Signature",
				"",
				base64Lines(signature),
				`--${signedBoundary}--`,
				"",
			].join(CRLF),
			"latin1",
		),
	]);
	return {
		headers: {
			"Message-ID": "<OPENAS2-27112026050000+0000-1234@OpenAS2A_OID>",
			"AS2-Version": "1.1",
			"AS2-From": fields.from,
			"AS2-To": fields.to,
			"Mime-Version": "1.0",
			"Content-Type": contentType.replace(`${CRLF}\t`, ""),
			Server: "OpenAS2 Server",
		},
		body,
	};
}

/**
 * mendelson's unsigned 3DES message as issue #17 (defect 4) saw it: the raw payload, not a
 * MIME entity, inside EnvelopedData — `openssl cms -encrypt -des3 -binary` over the bare
 * file, DER, posted as `application/pkcs7-mime; smime-type=enveloped-data`.
 */
export function mendelsonRawEncrypted(
	dir: string,
	payload: Buffer,
	recipientCertPath: string,
	ids: { from: string; to: string; messageId: string },
): WireMessage {
	const input = join(dir, "mendelson-payload.edi");
	const output = join(dir, "mendelson-payload.p7m");
	writeFileSync(input, payload);
	openssl(["cms", "-encrypt", "-des3", "-binary", "-in", input, "-outform", "DER", "-out", output, recipientCertPath]);
	return {
		headers: {
			"AS2-Version": "1.2",
			"AS2-From": ids.from,
			"AS2-To": ids.to,
			"Message-ID": `<${ids.messageId}>`,
			Subject: "AS2 message",
			"Mime-Version": "1.0",
			"Content-Type": 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
			"Content-Disposition": 'attachment; filename="smime.p7m"',
			"User-Agent": "mendelson opensource AS2 1.1 build 63",
		},
		body: readFileSync(output),
	};
}

/** A raw EDIFACT interchange: no MIME headers, `'` terminators, no line ends. */
export const EDIFACT_INTERCHANGE = Buffer.from(
	"UNA:+.? 'UNB+UNOA:2+SENDER+RECEIVER+261127:0500+1'UNH+1+ORDERS:D:96A:UN'BGM+220+PO1+9'UNT+3+1'UNZ+1+1'",
	"latin1",
);

/** The AS2 ids and Message-ID a partner's message carries. */
export interface MessageIds {
	from: string;
	to: string;
	messageId: string;
}

/** A MIME entity as a partner writes it: header lines, a blank line, the body, CRLF throughout. */
export function mimeEntity(headerLines: string[], body: Buffer | string): Buffer {
	return Buffer.concat([
		Buffer.from(`${headerLines.join(CRLF)}${CRLF}${CRLF}`, "latin1"),
		typeof body === "string" ? Buffer.from(body, "latin1") : body,
	]);
}

/** The AS2 headers every partner sends (RFC 4130 §6), plus the caller's. */
function as2Headers(ids: MessageIds, extra: Record<string, string>): Record<string, string> {
	return {
		"AS2-Version": "1.2",
		"AS2-From": ids.from,
		"AS2-To": ids.to,
		"Message-ID": `<${ids.messageId}>`,
		"Mime-Version": "1.0",
		...extra,
	};
}

export interface SignedMessageOptions {
	/** The digest OpenSSL signs with. */
	digest: OpensslDigest;
	/** The `micalg` parameter exactly as the partner spells it; null: none (as2-anchors §D6). */
	micalg: string | null;
	/** The signature part's Content-Transfer-Encoding (django-pyas2#5 switched to binary). */
	signatureEncoding?: "base64" | "binary";
	/** Base64 lines of the signature end in bare LF (DG-1Q14, as2-anchors §D1). */
	signatureLfLines?: boolean;
	/** The signature part's media type (pyas2-lib 1.1.0 reads the legacy `application/x-pkcs7-signature`). */
	signatureType?: string;
	/** Bytes after the closing delimiter (as2-anchors §D11). */
	epilogue?: string;
	/** More HTTP headers (AS2-Version, Disposition-Notification-*). */
	headers?: Record<string, string>;
}

/**
 * A signed AS2 message as a partner hand-assembles it around an `openssl cms -sign -binary`
 * detached signature of `entity` (its exact bytes are what the MIC covers, RFC 4130 §7.3.1):
 * a multipart/signed body with the `micalg` spelling, signature encoding and media type the
 * partner uses, and the multipart/signed Content-Type in the HTTP headers.
 */
export function signedMessage(
	dir: string,
	entity: Buffer,
	signer: Signer,
	ids: MessageIds,
	options: SignedMessageOptions,
): WireMessage {
	const boundary = "----=_Part_11_1180353624.1764212400000";
	const signature = detachedSignature(dir, `message-${options.digest}`, entity, signer, options.digest);
	const encoding = options.signatureEncoding ?? "base64";
	let encodedSignature = encoding === "binary" ? signature : Buffer.from(`${base64Lines(signature)}${CRLF}`, "latin1");
	if (options.signatureLfLines)
		encodedSignature = Buffer.from(encodedSignature.toString("latin1").replace(/\r\n/g, "\n"));
	const body = Buffer.concat([
		Buffer.from(`--${boundary}${CRLF}`, "latin1"),
		entity,
		Buffer.from(
			[
				"",
				`--${boundary}`,
				`Content-Type: ${options.signatureType ?? "application/pkcs7-signature"}; name=smime.p7s`,
				`Content-Transfer-Encoding: ${encoding}`,
				'Content-Disposition: attachment; filename="smime.p7s"',
				"",
				"",
			].join(CRLF),
			"latin1",
		),
		encodedSignature,
		Buffer.from(`${encoding === "binary" ? CRLF : ""}--${boundary}--${CRLF}${options.epilogue ?? ""}`, "latin1"),
	]);
	const micalg = options.micalg === null ? "" : ` micalg=${options.micalg};`;
	return {
		headers: as2Headers(ids, {
			"Content-Type": `multipart/signed; protocol="application/pkcs7-signature";${micalg} boundary="${boundary}"`,
			...options.headers,
		}),
		body,
	};
}

/**
 * An encrypted AS2 message: `openssl cms -encrypt -binary` (AES-128-CBC) of `entity` to
 * `recipientCertPath`, DER, posted as `application/pkcs7-mime; smime-type=enveloped-data`
 * (or the Content-Type the partner writes instead).
 */
export function encryptedMessage(
	dir: string,
	entity: Buffer,
	recipientCertPath: string,
	ids: MessageIds,
	options: { contentType?: string; headers?: Record<string, string> } = {},
): WireMessage {
	const input = join(dir, `${ids.messageId}.entity`);
	const output = join(dir, `${ids.messageId}.p7m`);
	writeFileSync(input, entity);
	openssl([
		"cms",
		"-encrypt",
		"-aes128",
		"-binary",
		"-in",
		input,
		"-outform",
		"DER",
		"-out",
		output,
		recipientCertPath,
	]);
	return {
		headers: as2Headers(ids, {
			"Content-Type": options.contentType ?? 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
			...options.headers,
		}),
		body: readFileSync(output),
	};
}

/**
 * The whole HTTP body base64-encoded, announced by `Content-Transfer-Encoding: base64` among
 * the HTTP headers: Orderful's axios client does this to messages and async MDNs alike
 * (OpenAs2App#299, as2-anchors §C10; DG-1Q14 calls it wrong, §D2, but partners send it).
 */
export function base64HttpBody(wire: WireMessage): WireMessage {
	return {
		headers: { ...wire.headers, "Content-Transfer-Encoding": "base64" },
		body: Buffer.from(`${base64Lines(wire.body)}${CRLF}`, "latin1"),
	};
}

/**
 * A signed MDN hand-assembled with the disposition fields exactly as given — the MDN quirks of
 * as2-anchors §D7 (folded fields, `;processed`, no Original-Recipient, error dispositions) live
 * in those lines — in a multipart/report whose parameters are `reportParams` (its human-readable
 * part `text`), signed with
 * `openssl cms -sign` as multipart/signed. `headers` are the HTTP headers besides Content-Type.
 */
export function handAssembledMdn(
	dir: string,
	fields: string[],
	signer: Signer,
	options: { headers: Record<string, string>; reportParams?: string; text?: string },
): WireMessage {
	const reportBoundary = "report-7f3a9c";
	const signedBoundary = "signed-2b8e41";
	const report = mimeEntity(
		[
			`Content-Type: multipart/report; ${options.reportParams ?? "report-type=disposition-notification"}; boundary="${reportBoundary}"`,
		],
		[
			`--${reportBoundary}`,
			"Content-Type: text/plain",
			"",
			options.text ?? "Your message was received.",
			`--${reportBoundary}`,
			"Content-Type: message/disposition-notification",
			"",
			...fields,
			`--${reportBoundary}--`,
			"",
		].join(CRLF),
	);
	const signature = detachedSignature(dir, "hand-mdn", report, signer);
	return {
		headers: {
			...options.headers,
			"Content-Type": `multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256; boundary="${signedBoundary}"`,
		},
		body: Buffer.concat([
			Buffer.from(`--${signedBoundary}${CRLF}`, "latin1"),
			report,
			Buffer.from(
				[
					"",
					`--${signedBoundary}`,
					"Content-Type: application/pkcs7-signature; name=smime.p7s",
					"Content-Transfer-Encoding: base64",
					"",
					base64Lines(signature),
					`--${signedBoundary}--`,
					"",
				].join(CRLF),
				"latin1",
			),
		]),
	};
}
