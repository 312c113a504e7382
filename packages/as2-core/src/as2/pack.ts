import {
	type ContentEncryptionAlgorithm,
	DIGESTS,
	type DigestAlgorithm,
	type KeyEncryptionAlgorithm,
} from "../algorithms.ts";
import {
	BUFFERED_MAX_BYTES,
	type ByteSource,
	bufferedBytes,
	inMemoryIfSmall,
	joinLatin1,
	latin1,
	sourceFromBytes,
} from "../bytes/index.ts";
import { compress } from "../cms/compressed-data.ts";
import { encrypt } from "../cms/enveloped-data.ts";
import {
	createDetachedSigner,
	type DetachedSigner,
	type SignedContent,
	type SignOptions,
	signBufferedDetachedAsync,
} from "../cms/signed-data.ts";
import { createDigest, type Digest, digestBytes } from "../crypto/index.ts";
import { As2Error, toAs2Error } from "../errors/index.ts";
import {
	base64EncodedSize,
	canonicalizeBytes,
	canonicalizeLineEndings,
	canonicalSize,
	encodeBase64,
	encodeBase64Bytes,
	encodeHeaderText,
	formatHeaderValue,
	isFieldName,
	isFieldValue,
	isTextMediaType,
	MimeHeaders,
	multipartBoundary,
	parseContentType,
} from "../mime/index.ts";
import { formatAs2Id } from "./as2-id.ts";
import { type Entity, serializeEntity } from "./entity.ts";
import { createMessageId, formatMessageId, stripMessageId } from "./message-id.ts";
import { type Mic, micFromDigest } from "./mic.ts";
import { formatNotificationOptions } from "./notification-options.ts";

export interface PackSignOptions extends Omit<SignOptions, "digest"> {
	digest?: DigestAlgorithm;
}

export interface PackEncryptOptions {
	/** The partner's encryption certificate (DER); several for a certificate rollover. */
	certificates: Uint8Array[];
	algorithm: ContentEncryptionAlgorithm;
	keyEncryption?: KeyEncryptionAlgorithm;
}

export interface PackMdnOptions {
	/** `sync`: in the HTTP response; `async`: POSTed to `url` (Receipt-Delivery-Option). */
	mode: "none" | "sync" | "async";
	url?: string;
	/** Ask for a signed MDN with these MIC algorithms (first preferred); false for unsigned. */
	signed?: DigestAlgorithm[] | false;
	/** Disposition-Notification-To value; defaults to the async URL or the sender's id. */
	notificationTo?: string;
}

export interface PackOptions {
	payload: ByteSource | Uint8Array;
	/** The payload's MIME type, e.g. `application/edi-x12`. */
	contentType: string;
	filename?: string;
	from: string;
	to: string;
	messageId?: string;
	subject?: string;
	date?: Date;
	sign?: PackSignOptions;
	encrypt?: PackEncryptOptions;
	/** RFC 5402: compress the payload before signing it, or the signed entity after. */
	compress?: "before-sign" | "after-sign";
	mdn?: PackMdnOptions;
	/** Payload part encoding: `binary` (RFC 4130 §5.2 default over HTTP) or `base64` for partners that need it. */
	transferEncoding?: "binary" | "base64";
	/**
	 * RFC 5751 §3.1.1: text/* is signed in canonical CRLF form. On by default; a partner that
	 * wants its text byte-exact (bare LF kept) turns it off. Binary types are never touched.
	 */
	canonicalizeText?: boolean;
	/** Extra headers sent as they are (custom AS2 headers). */
	headers?: Record<string, string>;
	/** EDIINT-Features we advertise (RFC 6017). */
	ediintFeatures?: string;
	/** Domain part of generated Message-IDs. */
	messageIdDomain?: string;
}

export interface PackResult {
	/** The HTTP request headers, unfolded, in sending order. */
	headers: MimeHeaders;
	/** The HTTP request body; `size` is its exact Content-Length. */
	body: ByteSource;
	/** Without angle brackets. */
	messageId: string;
	/** The MIC the partner's MDN must return; known once `body` has been read through once. */
	mic(): Promise<Mic>;
	/**
	 * The same MIC in the other algorithms a partner answers with when it does not use the one
	 * asked (SHA-1, our signature's digest; issue #17, defect 6): an MDN carrying one of these
	 * is a receipt for the same bytes. Known when {@link mic} is.
	 */
	alternativeMics(): Promise<Mic[]>;
	/** What was applied, for the record. */
	signed: boolean;
	encrypted: boolean;
	compressed: boolean;
	micAlgorithm: DigestAlgorithm;
}

const DEFAULT_SIGN_DIGEST: DigestAlgorithm = "sha256";

/**
 * Builds an outbound AS2 message (RFC 4130) for any combination of sign, encrypt and compress,
 * streaming: nothing holds the payload whole, and the body's size is known before it is read
 * so it can go out with a Content-Length. A small payload (up to {@link BUFFERED_MAX_BYTES}),
 * given as bytes or as a source that is then read here once, takes the buffered path instead:
 * every layer is applied at once, the body is one array (`body.bytes`) and the MIC is known
 * when this resolves. Both paths produce the same bytes.
 *
 * @example
 * const message = await pack({ payload: utf8("ISA*00*..."), contentType: "application/edi-x12",
 *   from: "ME", to: "PARTNER", sign: { privateKey, certificate }, encrypt: { certificates: [partnerCert], algorithm: "aes256" } });
 * await fetch(url, { method: "POST", headers: [...message.headers], body: toReadableStream(message.body.open()), duplex: "half" });
 */
export async function pack(options: PackOptions): Promise<PackResult> {
	const payload = await inMemoryIfSmall(
		options.payload instanceof Uint8Array ? sourceFromBytes(options.payload) : options.payload,
	);
	const messageId = stripMessageId(options.messageId ?? createMessageId(options.messageIdDomain));
	const signDigest = options.sign ? (options.sign.digest ?? DEFAULT_SIGN_DIGEST) : undefined;
	const micAlgorithm: DigestAlgorithm = (options.mdn?.signed || undefined)?.[0] || signDigest || DEFAULT_SIGN_DIGEST;
	const micTracker = createMicTracker([
		...new Set<DigestAlgorithm>([micAlgorithm, "sha1", ...(signDigest ? [signDigest] : [])]),
	]);

	// Neither signed, encrypted nor compressed: the MIC covers the content itself, before any
	// transfer encoding (RFC 4130 §7.3.1).
	const bare = !options.sign && !options.encrypt && !options.compress;
	let entity = await payloadEntity(payload, options, Boolean(options.sign), bare ? micTracker : undefined);
	if (options.compress === "before-sign" || (options.compress && !options.sign)) entity = await compressEntity(entity);
	if (options.sign && signDigest)
		entity = await signEntity(entity, { ...options.sign, digest: signDigest }, micTracker);
	if (options.compress === "after-sign" && options.sign) entity = await compressEntity(entity);
	if (options.encrypt) {
		// RFC 4130 §7.3.1: unsigned but encrypted → MIC over the entity that was encrypted.
		const inner = options.sign ? serializeEntity(entity) : tapSource(serializeEntity(entity), micTracker, "encrypted");
		entity = encryptEntity(inner, options.encrypt);
	} else if (!options.sign && options.compress) {
		// Compressed only: the MIC covers the HTTP body, as the receiver reads it.
		entity = { headers: entity.headers, body: tapSource(entity.body, micTracker, "plain") };
	}

	return {
		headers: as2Headers(entity.headers, options, messageId, micAlgorithm),
		body: entity.body,
		messageId,
		mic: micTracker.mic,
		alternativeMics: micTracker.alternatives,
		signed: Boolean(options.sign),
		encrypted: Boolean(options.encrypt),
		compressed: Boolean(options.compress),
		micAlgorithm,
	};
}

async function payloadEntity(
	payload: ByteSource,
	options: PackOptions,
	signing: boolean,
	mic: MicTracker | undefined,
): Promise<Entity> {
	const contentType = parseContentType(options.contentType);
	if (!/^[\x21-\x7e]+\/[\x21-\x7e]+$/.test(contentType.mediaType)) {
		throw new As2Error("INVALID_CONTENT_TYPE", `"${options.contentType}" is not a MIME type`);
	}
	let body = payload;
	if (signing && options.canonicalizeText !== false && isTextMediaType(contentType.mediaType)) {
		const bytes = bufferedBytes(payload);
		if (bytes) {
			body = sourceFromBytes(canonicalizeBytes(bytes));
		} else {
			const size = await canonicalSize(payload);
			body = { size, open: () => canonicalizeLineEndings(payload.open()) };
		}
	}
	if (mic) body = tapSource(body, mic, "plain");
	const headers = new MimeHeaders([["Content-Type", options.contentType]]);
	if (options.transferEncoding === "base64") {
		const raw = body;
		const bytes = bufferedBytes(raw);
		body = bytes
			? sourceFromBytes(encodeBase64Bytes(bytes))
			: { size: base64EncodedSize(raw.size), open: () => encodeBase64(raw.open()) };
		headers.append("Content-Transfer-Encoding", "base64");
	} else {
		headers.append("Content-Transfer-Encoding", "binary");
	}
	// as2-anchors §D13: the filename travels in Content-Disposition, never in Content-ID.
	if (options.filename)
		headers.append("Content-Disposition", formatHeaderValue("attachment", { filename: options.filename }));
	return { headers, body };
}

async function compressEntity(inner: Entity): Promise<Entity> {
	const der = await compress(serializeEntity(inner)).catch((e: unknown) => {
		throw toAs2Error(e, "INTERNAL_ERROR", "compression failed");
	});
	return smimeEntity("compressed-data", "smime.p7z", der);
}

function encryptEntity(inner: ByteSource, options: PackEncryptOptions): Entity {
	const der = encrypt(inner, {
		algorithm: options.algorithm,
		recipients: options.certificates.map((certificate) => ({
			certificate,
			keyEncryption: options.keyEncryption ?? "rsa",
		})),
	});
	// RFC 8551 §3.2.2: AES-GCM travels as AuthEnvelopedData with its own smime-type.
	const aead = options.algorithm.endsWith("-gcm");
	return smimeEntity(aead ? "authEnveloped-data" : "enveloped-data", "smime.p7m", der);
}

function smimeEntity(smimeType: string, name: string, der: ByteSource): Entity {
	return {
		headers: new MimeHeaders([
			["Content-Type", formatHeaderValue("application/pkcs7-mime", { "smime-type": smimeType, name })],
			["Content-Transfer-Encoding", "binary"],
			["Content-Disposition", formatHeaderValue("attachment", { filename: name })],
		]),
		body: der,
	};
}

/**
 * multipart/signed (RFC 1847, RFC 5751 §3.5.3) with a detached signature. The signature part
 * is base64: several receivers cannot find a binary one (django-pyas2#5). Its size is known
 * ahead because an RSA signature is as long as the modulus. The RSA operation runs in libuv's
 * thread pool, off the event loop (issue #20), but for a streamed content without signed
 * attributes: that signature covers the content, which only the Sign object fed it has seen.
 */
async function signEntity(inner: Entity, sign: SignOptions, mic: MicTracker): Promise<Entity> {
	const boundary = multipartBoundary();
	const content = serializeEntity(inner);
	const signingTime = sign.signingTime ?? new Date();
	const options: SignOptions = { ...sign, signingTime };
	const buffered = bufferedBytes(content);
	let signer: DetachedSigner | undefined;
	let signed: SignedContent | undefined;
	try {
		if (buffered) signed = await signBufferedDetachedAsync(buffered, options);
		else signer = createDetachedSigner(options);
	} catch (error) {
		throw toAs2Error(error, "SIGNING_FAILED", "cannot sign");
	}
	const signatureHeaders =
		'Content-Type: application/pkcs7-signature; name="smime.p7s"\r\n' +
		"Content-Transfer-Encoding: base64\r\n" +
		'Content-Disposition: attachment; filename="smime.p7s"\r\n\r\n';
	const opening = `--${boundary}\r\n`;
	const middle = `\r\n--${boundary}\r\n${signatureHeaders}`;
	const closing = `--${boundary}--\r\n`;
	let body: ByteSource;
	if (buffered && signed) {
		const { der, contentDigest } = signed;
		// RFC 4130 §7.3.1: the MIC of a signed message covers exactly the signed bytes.
		mic.resolve(
			mic.algorithms.map((algorithm) => (sign.digest === algorithm ? contentDigest : digestBytes(algorithm, buffered))),
			"signed",
		);
		body = sourceFromBytes(joinLatin1([opening, buffered, middle, encodeBase64Bytes(der), closing]));
	} else {
		const signatureSize = signer!.size;
		// The boundary and the part headers are ASCII: as many bytes as characters.
		const size = opening.length + content.size + middle.length + base64EncodedSize(signatureSize) + closing.length;
		body = {
			size,
			async *open() {
				const pass = createDetachedSigner(options);
				const micDigests = mic.algorithms.map((algorithm) =>
					sign.digest === algorithm ? undefined : createDigest(algorithm),
				);
				yield latin1(opening);
				for await (const chunk of content.open()) {
					pass.update(chunk);
					for (const digest of micDigests) digest?.update(chunk);
					yield chunk;
				}
				const signature = await pass.finishAsync();
				if (signature.byteLength !== signatureSize) {
					throw new As2Error(
						"INTERNAL_ERROR",
						`SignedData is ${signature.byteLength} bytes, announced ${signatureSize}`,
					);
				}
				mic.resolve(
					micDigests.map((digest) => (digest ? digest.digest() : pass.contentDigest())),
					"signed",
				);
				yield latin1(middle);
				yield encodeBase64Bytes(signature);
				yield latin1(closing);
			},
		};
	}
	const headers = new MimeHeaders([
		[
			"Content-Type",
			formatHeaderValue("multipart/signed", {
				protocol: "application/pkcs7-signature",
				micalg: DIGESTS[sign.digest].micalg,
				boundary,
			}),
		],
	]);
	return { headers, body };
}

function as2Headers(
	top: MimeHeaders,
	options: PackOptions,
	messageId: string,
	micAlgorithm: DigestAlgorithm,
): MimeHeaders {
	const headers = new MimeHeaders([
		["AS2-Version", "1.0"],
		["AS2-From", formatAs2Id(options.from)],
		["AS2-To", formatAs2Id(options.to)],
		["Message-ID", formatMessageId(messageId)],
		["Date", (options.date ?? new Date()).toUTCString()],
		// An HTTP header carries octets, and Latin-1 at best: other text goes as RFC 2047 words.
		["Subject", encodeHeaderText(oneLine(options.subject ?? `AS2 message ${messageId}`))],
		["MIME-Version", "1.0"],
	]);
	for (const [name, value] of top) headers.append(name, value);
	const mdn = options.mdn;
	if (mdn && mdn.mode !== "none") {
		if (mdn.mode === "async" && !mdn.url) throw new As2Error("INVALID_AS2_HEADERS", "an async MDN needs a URL");
		headers.append("Disposition-Notification-To", oneLine(mdn.notificationTo ?? mdn.url ?? options.from));
		if (mdn.signed !== false) {
			const algorithms = mdn.signed && mdn.signed.length > 0 ? mdn.signed : [micAlgorithm];
			headers.append("Disposition-Notification-Options", formatNotificationOptions(algorithms));
		}
		if (mdn.mode === "async" && mdn.url) headers.append("Receipt-Delivery-Option", oneLine(mdn.url));
	}
	headers.append("EDIINT-Features", options.ediintFeatures ?? "AS2-Reliability");
	for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(...customHeader(name, value));
	return headers;
}

/**
 * A custom header goes out as given or not at all: its meaning is the partner's, so it is
 * never re-encoded, and a value Node's HTTP client cannot send (beyond Latin-1) or a partner
 * would read differently (8-bit, control characters) fails here, with a code, not mid-send.
 */
function customHeader(name: string, value: string): [string, string] {
	if (!isFieldName(name))
		throw new As2Error("INVALID_AS2_HEADERS", `custom header name ${JSON.stringify(name)} is not a token`);
	if (!isFieldValue(value)) {
		throw new As2Error(
			"INVALID_AS2_HEADERS",
			`custom header ${name} may hold only printable US-ASCII (no line breaks or control characters)`,
		);
	}
	return [name, value];
}

/** Outgoing headers are never folded and never carry line breaks (as2-anchors §D7, §D11). */
function oneLine(value: string): string {
	return value.replace(/[\r\n]+/g, " ");
}

/** The MIC in the algorithm asked (`algorithms[0]`) and in the alternatives, over the same bytes. */
interface MicTracker {
	readonly algorithms: readonly DigestAlgorithm[];
	/** One digest per algorithm, in order. */
	resolve(digests: Uint8Array[], reading: "signed" | "encrypted" | "plain"): void;
	mic(): Promise<Mic>;
	alternatives(): Promise<Mic[]>;
}

function createMicTracker(algorithms: DigestAlgorithm[]): MicTracker {
	let values: Mic[] | undefined;
	const waiters: Array<(mics: Mic[]) => void> = [];
	const all = () => (values ? Promise.resolve(values) : new Promise<Mic[]>((resolve) => waiters.push(resolve)));
	return {
		algorithms,
		resolve(digests) {
			const mics = digests.map((digest, i) => micFromDigest(digest, algorithms[i]!));
			values = mics;
			for (const w of waiters.splice(0)) w(mics);
		},
		mic: async () => (await all())[0]!,
		alternatives: async () => (await all()).slice(1),
	};
}

function tapSource(source: ByteSource, mic: MicTracker, reading: "encrypted" | "plain"): ByteSource {
	const buffered = bufferedBytes(source);
	if (buffered) {
		mic.resolve(
			mic.algorithms.map((algorithm) => digestBytes(algorithm, buffered)),
			reading,
		);
		return source;
	}
	return {
		size: source.size,
		async *open() {
			// Resolved on the last byte, not at the generator's end: a reader that stops at the
			// end of a DER structure never asks for the generator to finish.
			const digests: Digest[] = mic.algorithms.map((algorithm) => createDigest(algorithm));
			const finish = () =>
				mic.resolve(
					digests.map((digest) => digest.digest()),
					reading,
				);
			let seen = 0;
			if (source.size === 0) finish();
			for await (const chunk of source.open()) {
				for (const digest of digests) digest.update(chunk);
				seen += chunk.byteLength;
				if (seen === source.size) finish();
				yield chunk;
			}
		},
	};
}
