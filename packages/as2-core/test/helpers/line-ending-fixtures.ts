import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A multipart/signed AS2 body whose line ends a gateway changed after signing (issue #17
 * defect 3; seen with mendelson and IBM Sterling captures, phase2#12, pyas2-lib PR #8; as2-anchors §C.3, §D1): the
 * MIME entity is signed in one form with `openssl cms -sign -binary` (detached, byte-exact),
 * framed as RFC 1847 multipart/signed, and the whole body is then delivered in the other form,
 * as a text-mode transfer leaves it. Built with the OpenSSL CLI, never with our own pack().
 */
export interface DamagedSigned {
	/** The HTTP headers of the AS2 POST. */
	headers: Record<string, string>;
	body: Buffer;
	/** The exact bytes that were signed (what the MIC must be computed over). */
	signed: Buffer;
	/** The payload as delivered (the first part's content, in the delivered form). */
	deliveredContent: Buffer;
}

export interface DamageOptions {
	/** Signer key and certificate (PEM files). */
	keyPath: string;
	certPath: string;
	/** A directory for openssl's input file. */
	dir: string;
	signedForm: "lf" | "crlf";
	deliveredForm: "lf" | "crlf";
	/** The signed entity's Content-Type; default text/plain. */
	contentType?: string;
	/** Change one content byte after signing (a forgery: no form may verify). */
	tamper?: boolean;
	from?: string;
	to?: string;
	messageId?: string;
}

const BOUNDARY = "----=_Part_17_lineends";
export const LINES = [
	"ISA*00*          *00*          *ZZ*SENDER  *ZZ*RECEIVER~",
	"GS*PO*SENDER*RECEIVER~",
	"ST*850*0001~",
	"SE*2*0001~",
	"",
];

const toLf = (text: string) => text.replace(/\r\n/g, "\n");
const toCrlf = (text: string) => text.replace(/\r?\n/g, "\r\n");
const inForm = (text: string, form: "lf" | "crlf") => (form === "lf" ? toLf(text) : toCrlf(text));

export function lineEndingDamaged(options: DamageOptions): DamagedSigned {
	const contentType = options.contentType ?? "text/plain";
	const entity = inForm(
		`Content-Type: ${contentType}\r\nContent-Disposition: attachment; filename="po-4711.txt"\r\n\r\n${LINES.join("\r\n")}`,
		options.signedForm,
	);
	const signed = Buffer.from(entity, "latin1");
	const file = join(options.dir, `entity-${createHash("sha1").update(JSON.stringify(options)).digest("hex")}.txt`);
	writeFileSync(file, signed);
	const signature = execFileSync(
		"openssl",
		[
			"cms",
			"-sign",
			"-binary",
			"-md",
			"sha256",
			"-signer",
			options.certPath,
			"-inkey",
			options.keyPath,
			"-outform",
			"DER",
			"-in",
			file,
		],
		{ stdio: ["ignore", "pipe", "pipe"] },
	);
	const base64 = signature.toString("base64").replace(/.{1,76}/g, "$&\r\n");
	let sent = entity;
	if (options.tamper) sent = sent.replace("ST*850", "ST*860");
	const body = inForm(
		`--${BOUNDARY}\r\n${sent}\r\n--${BOUNDARY}\r\nContent-Type: application/pkcs7-signature; name=smime.p7s\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=smime.p7s\r\n\r\n${base64}\r\n--${BOUNDARY}--\r\n`,
		options.deliveredForm,
	);
	const delivered = inForm(sent, options.deliveredForm);
	return {
		headers: {
			"Content-Type": `multipart/signed; protocol="application/pkcs7-signature"; micalg=sha-256; boundary="${BOUNDARY}"`,
			"AS2-Version": "1.2",
			"AS2-From": options.from ?? "LINEENDS",
			"AS2-To": options.to ?? "RECEIVER",
			"Message-ID": `<${options.messageId ?? `line-ends-${Date.now()}-${Math.random().toString(36).slice(2)}`}@partner.example>`,
			"Disposition-Notification-To": "edi@partner.example",
			"Disposition-Notification-Options":
				"signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256",
			"Content-Length": String(Buffer.byteLength(body, "latin1")),
		},
		body: Buffer.from(body, "latin1"),
		signed,
		deliveredContent: Buffer.from(
			delivered.slice(
				delivered.indexOf(options.deliveredForm === "lf" ? "\n\n" : "\r\n\r\n") +
					(options.deliveredForm === "lf" ? 2 : 4),
			),
			"latin1",
		),
	};
}

/** The RFC 4130 §7.3.1 MIC of `bytes`: base64 SHA-256, then `, sha-256`. */
export function micOf(bytes: Buffer): string {
	return `${createHash("sha256").update(bytes).digest("base64")}, sha-256`;
}
