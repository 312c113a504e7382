/**
 * The S/MIME operations of the OpenSSL peer (RFC 5751, RFC 5652), each one `openssl cms` (or
 * `openssl smime`) run on files of its own workspace (openssl-cli.ts): sign, verify, encrypt,
 * decrypt, and the MIC of RFC 4130 §7.3.1 with `openssl dgst`.
 */
import {
	inWorkspace,
	type OpensslDigest,
	openssl,
	opensslDigest,
	opensslPrint,
	printedCipher,
	printedContainer,
	printedKeyTransport,
	printedSignerDigest,
} from "./openssl-cli.ts";
import { decodedBody, headerParam, multipartParts, multipartSigned, parseEntity } from "./openssl-peer-mime.ts";

export interface PeerIdentity {
	certPath: string;
	keyPath: string;
}

/**
 * Who frames a signed entity: the peer by hand as multipart/signed (CRLF), the CLI's S/MIME
 * output, or `opaque`: the content inside the SignedData (`-nodetach`), application/pkcs7-mime.
 */
export type Framing = "hand" | "cms" | "smime" | "opaque";

/** The algorithm names of `micalg` and Received-Content-MIC (RFC 5751 §3.4.3.2). */
export const MIC_NAME: Record<string, string> = {
	sha1: "sha-1",
	sha256: "sha-256",
	sha384: "sha-384",
	sha512: "sha-512",
};

/** Key transport by partner-setting name: PKCS#1 v1.5, or RSAES-OAEP (RFC 3560 defaults for `oaep`). */
const KEYOPTS: Record<string, string[]> = {
	rsa: [],
	oaep: ["-keyopt", "rsa_padding_mode:oaep"],
	...Object.fromEntries(
		["sha256", "sha384", "sha512"].map((hash) => [
			`oaep-${hash}`,
			["-keyopt", "rsa_padding_mode:oaep", "-keyopt", `rsa_oaep_md:${hash}`, "-keyopt", `rsa_mgf1_md:${hash}`],
		]),
	),
};

/** A Received-Content-MIC of `bytes`: `openssl dgst`, base64, then the algorithm's name. */
export async function micOf(workDir: string, bytes: Buffer, digest: OpensslDigest): Promise<string> {
	return `${await opensslDigest(workDir, bytes, digest)}, ${MIC_NAME[digest]}`;
}

/**
 * `content` (an entity with its headers) signed with `openssl cms -sign -binary` (signed
 * attributes, OpenSSL's default): `hand` frames a detached DER signature as multipart/signed
 * itself, CRLF throughout (RFC 1847 §2.1); `cms` and `smime` take the S/MIME output of
 * `openssl cms -sign` / `openssl smime -sign` as the CLI writes it — LF delimiter lines, a
 * preamble ("This is an S/MIME signed message"), and for `smime` the legacy
 * `application/x-pkcs7-signature` — its header block becoming the HTTP headers.
 */
export function signEntity(
	workDir: string,
	content: Buffer,
	digest: OpensslDigest,
	signer: PeerIdentity,
	options: { framing?: Framing; micalg?: string; cmsOptions?: string[] } = {},
): Promise<{ contentType: string; body: Buffer }> {
	const framing = options.framing ?? "hand";
	return inWorkspace(workDir, async (ws) => {
		const input = await ws.file("content", content);
		const output = await openssl([
			framing === "smime" ? "smime" : "cms",
			"-sign",
			"-binary",
			"-md",
			digest,
			"-signer",
			signer.certPath,
			"-inkey",
			signer.keyPath,
			...(framing === "hand" || framing === "opaque" ? ["-outform", "DER"] : []),
			...(framing === "opaque" ? ["-nodetach"] : []),
			...(options.cmsOptions ?? []),
			"-in",
			input,
		]);
		if (framing === "opaque") {
			return { contentType: 'application/pkcs7-mime; smime-type=signed-data; name="smime.p7m"', body: output };
		}
		if (framing !== "hand") {
			const written = parseEntity(output);
			return { contentType: written.headers["content-type"]!, body: written.body };
		}
		return multipartSigned(content, output, options.micalg ?? MIC_NAME[digest]!);
	});
}

export interface VerifiedSignature {
	/** The first part, byte-exact, as OpenSSL vouches for it. */
	content: Buffer;
	/** The signer's digest algorithm (`sha256` …). */
	digest: string;
	signedAttributes: boolean;
}

/**
 * Verifies a multipart/signed entity: its first part, byte-exact, against the detached
 * signature of its second (`openssl cms -verify -binary -content`), the signer only from
 * `trustedCertPath`. Not `-inform SMIME`: OpenSSL's S/MIME reader rewrites every line end of
 * the first part to CRLF (crypto/asn1/asn_mime.c, multi_split), so binary content with bare
 * LFs — what AS2 sends with Content-Transfer-Encoding: binary — would never verify.
 */
export async function verifySigned(
	workDir: string,
	entity: Buffer,
	trustedCertPath: string,
): Promise<VerifiedSignature> {
	const parsed = parseEntity(entity);
	const [content, signaturePart] = multipartParts(
		parsed.body,
		headerParam(parsed.headers["content-type"] ?? "", "boundary") ?? "",
	);
	if (!content || !signaturePart) throw new Error("a multipart/signed without its two parts");
	const signature = decodedBody(parseEntity(signaturePart));
	const printed = await opensslPrint(workDir, signature, "DER");
	const verified = await inWorkspace(workDir, async (ws) => {
		const signatureFile = await ws.file("signature.p7s", signature);
		const contentFile = await ws.file("content", content);
		return openssl([
			"cms",
			"-verify",
			"-binary",
			"-inform",
			"DER",
			"-in",
			signatureFile,
			"-content",
			contentFile,
			"-nointern",
			"-certfile",
			trustedCertPath,
			"-noverify",
		]);
	});
	return {
		content: verified,
		digest: printedSignerDigest(printed),
		signedAttributes: !/(^|\s)signedAttrs: <ABSENT>/.test(printed),
	};
}

/**
 * `openssl cms -encrypt -binary` of `content`, DER: EnvelopedData, or AuthEnvelopedData for a
 * GCM cipher (RFC 5083/5084), with the Content-Type AS2 posts it under (RFC 5751 §3.2.2).
 */
export async function encryptEntity(
	workDir: string,
	content: Buffer,
	options: { cipher: string; keyTransport: string; recipientCertPath: string; cmsOptions?: string[] },
): Promise<{ contentType: string; body: Buffer }> {
	const body = await inWorkspace(workDir, async (ws) => {
		const input = await ws.file("entity", content);
		return openssl([
			"cms",
			"-encrypt",
			"-binary",
			`-${options.cipher}`,
			"-outform",
			"DER",
			"-in",
			input,
			"-recip",
			options.recipientCertPath,
			...(KEYOPTS[options.keyTransport] ?? []),
			...(options.cmsOptions ?? []),
		]);
	});
	const smimeType = /gcm/.test(options.cipher) ? "authEnveloped-data" : "enveloped-data";
	return { contentType: `application/pkcs7-mime; smime-type=${smimeType}; name="smime.p7m"`, body };
}

export interface Decrypted {
	entity: Buffer;
	/** What `openssl cms -cmsout -print` says of the container, cipher and key transport. */
	encryption: { container: string; cipher: string; keyTransport: string };
}

/** `openssl cms -decrypt -binary` of a DER EnvelopedData / AuthEnvelopedData, whatever key transport. */
export async function decryptEnveloped(workDir: string, body: Buffer, recipient: PeerIdentity): Promise<Decrypted> {
	const printed = await opensslPrint(workDir, body, "DER");
	const entity = await inWorkspace(workDir, async (ws) => {
		const input = await ws.file("message.p7m", body);
		return openssl([
			"cms",
			"-decrypt",
			"-binary",
			"-inform",
			"DER",
			"-in",
			input,
			"-inkey",
			recipient.keyPath,
			"-recip",
			recipient.certPath,
		]);
	});
	return {
		entity,
		encryption: {
			container: printedContainer(printed),
			cipher: printedCipher(printed),
			keyTransport: printedKeyTransport(printed),
		},
	};
}
