import { CIPHERS, type ContentEncryptionAlgorithm } from "../algorithms.ts";
import { BerReader, contextTag, derHeader, derInteger, derOid, derSetOf, TAG, tlvSize } from "../asn1/index.ts";
import {
	ByteReader,
	type ByteSource,
	bufferedBytes,
	type Chunks,
	checkedOpen,
	concatBytes,
	sourceFromBytes,
} from "../bytes/index.ts";
import {
	type ContentDecryptor,
	cipherChunks,
	createDecryptor,
	createEncryptor,
	isCipherAvailable,
	type PrivateKey,
	randomBytes,
} from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import { AUTH_ENVELOPED_DATA_VERSION, macField, macFieldSize, readMac } from "./auth-enveloped-data.ts";
import {
	blockSizeOf,
	type ContentCipher,
	contentEncryptionAlgorithmIdentifier,
	type DecryptionAlgorithm,
	GCM_ICV_LENGTH,
	parseContentEncryptionAlgorithm,
} from "./content-encryption.ts";
import {
	contentInfoPrefix,
	id_ct_authEnvelopedData,
	id_data,
	id_envelopedData,
	readContentInfoEnd,
	readContentInfoStart,
} from "./content-info.ts";
import {
	buildKeyTransRecipientInfo,
	type ContentKey,
	parseRecipientInfos,
	type ReceivedKeyEncryption,
	type ReceivedKeyTrans,
	type Recipient,
	unwrapContentKey,
} from "./recipient-info.ts";

export type { Recipient } from "./recipient-info.ts";

export interface EncryptOptions {
	recipients: Recipient[];
	algorithm: ContentEncryptionAlgorithm;
}

/**
 * Encrypts `content` for `recipients` into a DER ContentInfo: EnvelopedData (RFC 5652 §6)
 * for the CBC algorithms, AuthEnvelopedData (RFC 5083, RFC 5084) for AES-GCM with a
 * 12-octet nonce and a 16-octet tag. The size is known before any byte is produced (CBC:
 * PKCS#7 padding, RFC 5652 §6.3, always adds 1 to a block), the content is streamed through
 * the cipher, and `encryptedContent` is one primitive `[0] IMPLICIT OCTET STRING`.
 *
 * The content-encryption key, IV and wrapped keys are made once, here: every `open()` of
 * the result yields the same bytes, provided `content` does. (For GCM, re-opening a source
 * whose bytes changed would reuse the nonce on different plaintext: don't.)
 * A recipient certificate we cannot use is ENCRYPTION_FAILED.
 *
 * @example
 * const body = encrypt(sourceFromBytes(mime), { recipients: [{ certificate }], algorithm: "aes256" });
 * for await (const chunk of body.open()) send(chunk);
 */
export function encrypt(content: ByteSource, opts: EncryptOptions): ByteSource {
	const algorithm = opts.algorithm;
	const spec = Object.hasOwn(CIPHERS, algorithm) ? CIPHERS[algorithm] : undefined;
	if (!spec) throw new As2Error("UNSUPPORTED_ALGORITHM", `unknown content-encryption algorithm "${algorithm}"`);
	if (!opts.recipients || opts.recipients.length === 0) {
		throw new As2Error("ENCRYPTION_FAILED", "at least one recipient is needed");
	}
	const cek = randomBytes(spec.keySize);
	const iv = randomBytes(spec.ivSize);
	const infos = opts.recipients.map((recipient) => buildKeyTransRecipientInfo(recipient, cek));
	const recipientInfos = derSetOf(infos.map((info) => info.encoded));

	const blockSize = blockSizeOf(algorithm);
	const cipherSize = spec.aead ? content.size : (Math.floor(content.size / blockSize) + 1) * blockSize;
	// EncryptedContentInfo ::= SEQUENCE { contentType, contentEncryptionAlgorithm,
	//   encryptedContent [0] IMPLICIT EncryptedContent OPTIONAL } (RFC 5652 §6.1)
	const eciHead = concatBytes([
		derOid(id_data),
		contentEncryptionAlgorithmIdentifier(algorithm, iv),
		derHeader(contextTag(0, false), cipherSize),
	]);
	const eciSize = eciHead.byteLength + cipherSize;
	// RFC 5652 §6.1: version 0 when every RecipientInfo is version 0 (no originatorInfo or
	// unprotectedAttrs here), else 2. RFC 5083 §2.1: AuthEnvelopedData is always version 0.
	const version = spec.aead ? AUTH_ENVELOPED_DATA_VERSION : infos.every((info) => info.version === 0) ? 0 : 2;
	const versionTlv = derInteger(version);
	const trailerSize = spec.aead ? macFieldSize(GCM_ICV_LENGTH) : 0;
	const bodySize = versionTlv.byteLength + recipientInfos.byteLength + tlvSize(eciSize) + trailerSize;
	const prefix = concatBytes([
		contentInfoPrefix(spec.aead ? id_ct_authEnvelopedData : id_envelopedData, tlvSize(bodySize)),
		derHeader(TAG.SEQUENCE, bodySize),
		versionTlv,
		recipientInfos,
		derHeader(TAG.SEQUENCE, eciSize),
		eciHead,
	]);
	const size = prefix.byteLength + cipherSize + trailerSize;

	const buffered = bufferedBytes(content);
	if (buffered) {
		// Buffered path: the same cipher over the whole content in one call.
		const cipher = createEncryptor(spec.nodeName, cek, iv, spec.aead ? { authTagLength: GCM_ICV_LENGTH } : {});
		const body = cipher.update(buffered);
		const last = cipher.final();
		if (body.byteLength + last.byteLength !== cipherSize) {
			throw new As2Error(
				"INTERNAL_ERROR",
				`cipher produced ${body.byteLength + last.byteLength} bytes, ${cipherSize} were declared`,
			);
		}
		return sourceFromBytes(concatBytes([prefix, body, last, ...(spec.aead ? [macField(cipher.authTag())] : [])]));
	}
	return {
		size,
		async *open() {
			yield prefix;
			const cipher = createEncryptor(spec.nodeName, cek, iv, spec.aead ? { authTagLength: GCM_ICV_LENGTH } : {});
			let produced = 0;
			for await (const chunk of cipherChunks(checkedOpen(content), cipher)) {
				produced += chunk.byteLength;
				yield chunk;
			}
			const last = cipher.final();
			produced += last.byteLength;
			if (produced !== cipherSize) {
				throw new As2Error("INTERNAL_ERROR", `cipher produced ${produced} bytes, ${cipherSize} were declared`);
			}
			if (last.byteLength > 0) yield last;
			if (spec.aead) yield macField(cipher.authTag());
		},
	};
}

/** A private key of ours and, optionally, its certificate (DER), which picks the recipient that names it. */
export interface DecryptIdentity {
	privateKey: PrivateKey;
	certificate?: Uint8Array;
}

/**
 * One identity, or several (a certificate rollover: the first that recovers a well-formed
 * key wins). `maxHeaderBytes` caps each buffered header element, RecipientInfos above all
 * (default 1 MiB).
 */
export type DecryptOptions = (DecryptIdentity | { identities: ReadonlyArray<DecryptIdentity> }) & {
	maxHeaderBytes?: number;
};

export interface DecryptResult {
	/**
	 * The plaintext, streamed as it is decrypted; single use. A bad padding, a GCM tag
	 * mismatch or a wrong key is DECRYPTION_FAILED thrown at the end of the stream, before
	 * the last block is released: nothing read from it may be trusted until it has ended.
	 */
	content: Chunks;
	kind: "enveloped-data" | "auth-enveloped-data";
	algorithm: DecryptionAlgorithm;
	keyEncryption: ReceivedKeyEncryption;
}

export const DEFAULT_MAX_HEADER_BYTES = 1 << 20;
const CONTENT_FAILED = "content decryption failed: wrong key, bad padding or tampered data";

/**
 * Decrypts a CMS EnvelopedData or AuthEnvelopedData, BER (indefinite lengths, constructed
 * OCTET STRINGs, as `openssl cms -stream` sends) or DER. Resolves once the header is read
 * and the content key recovered; the content then streams. Key transport is RSA PKCS#1
 * v1.5 or OAEP; content encryption 3DES, AES-CBC, AES-GCM, RC2 (RFC 3370 §5.2, 40, 64 or 128
 * effective bits, for legacy partners: our own implementation, decryption only) and single
 * DES when the runtime has it (Node on OpenSSL 3 needs `--openssl-legacy-provider`).
 *
 * Errors: MALFORMED_CMS (structure, truncation), UNSUPPORTED_ALGORITHM, MESSAGE_TOO_LARGE (a
 * header element past `maxHeaderBytes`), DECRYPTION_FAILED (no RSA recipient; anything
 * wrong with the key or the ciphertext, reported at the end of `content`, RFC 3218 §2.3.2).
 *
 * @example
 * const { content } = await decrypt(body, { privateKey, certificate });
 * for await (const chunk of content) write(chunk);
 */
export async function decrypt(der: Chunks, opts: DecryptOptions): Promise<DecryptResult> {
	const maxHeaderBytes = opts.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
	const input = new ByteReader(der);
	const ber = new BerReader(input);
	try {
		const { kind, oid } = await readContentInfoStart(ber);
		if (kind !== "enveloped-data" && kind !== "auth-enveloped-data") {
			throw new As2Error("MALFORMED_CMS", `expected EnvelopedData or AuthEnvelopedData, found ${kind ?? oid}`);
		}
		// EnvelopedData ::= SEQUENCE { version, originatorInfo [0] IMPLICIT OPTIONAL,
		//   recipientInfos, encryptedContentInfo, unprotectedAttrs [1] IMPLICIT OPTIONAL }
		ber.enter(await ber.expect(TAG.SEQUENCE, kind === "enveloped-data" ? "EnvelopedData" : "AuthEnvelopedData"));
		await ber.readPrimitive(await ber.expect(TAG.INTEGER, "version"), 8, "version");
		if ((await ber.peekHeader())?.tag === contextTag(0, true)) await ber.skipElement(); // originatorInfo
		if ((await ber.peekHeader())?.tag !== TAG.SET) throw new As2Error("MALFORMED_CMS", "expected RecipientInfos");
		const recipients = parseRecipientInfos(await ber.readElement(maxHeaderBytes, "RecipientInfos"));

		ber.enter(await ber.expect(TAG.SEQUENCE, "EncryptedContentInfo"));
		await ber.readPrimitive(await ber.expect(TAG.OID, "EncryptedContentInfo contentType"), 256, "contentType");
		const cipher = parseContentEncryptionAlgorithm(
			await ber.readElement(MAX_ALGORITHM_BYTES, "contentEncryptionAlgorithm"),
		);
		checkContentCipher(kind, cipher);
		const encrypted = await ber.readHeader();
		if (encrypted.tagClass !== 2 || encrypted.tagNumber !== 0) throw noEncryptedContent();
		const { decryptor, keyValid, keyEncryption } = startDecryption(recipients, opts, cipher);
		return {
			content: streamContent(ber, encrypted, cipher, decryptor, keyValid),
			kind,
			algorithm: cipher.algorithm,
			keyEncryption,
		};
	} catch (error) {
		await input.return();
		throw isAs2Error(error) ? error : new As2Error("MALFORMED_CMS", "cannot read the CMS structure", { cause: error });
	}
}

/** Largest contentEncryptionAlgorithm element read (its parameters are an IV or GCM's). */
export const MAX_ALGORITHM_BYTES = 4096;

export const noEncryptedContent = () =>
	new As2Error("MALFORMED_CMS", "EncryptedContentInfo without encryptedContent (detached content is not supported)");

/** The algorithm must suit its container (RFC 5083: AEAD only in AuthEnvelopedData) and the runtime. */
export function checkContentCipher(kind: DecryptResult["kind"], cipher: ContentCipher): void {
	if (cipher.aead !== (kind === "auth-enveloped-data")) {
		throw new As2Error("UNSUPPORTED_ALGORITHM", `${cipher.algorithm} cannot be used in ${kind}`);
	}
	if (!isCipherAvailable(cipher.nodeName)) {
		throw new As2Error(
			"UNSUPPORTED_ALGORITHM",
			`${cipher.algorithm.toUpperCase()} (${cipher.nodeName}) is not available in this runtime; Node on OpenSSL 3 needs --openssl-legacy-provider`,
		);
	}
}

/** Recovers the content-encryption key (RFC 3218 §2.3.2: a random one when none unwraps) and starts the cipher. */
export function startDecryption(
	recipients: ReadonlyArray<ReceivedKeyTrans>,
	opts: DecryptOptions,
	cipher: ContentCipher,
): { decryptor: ContentDecryptor; keyValid: boolean; keyEncryption: ReceivedKeyEncryption } {
	const contentKey = recoverKey(recipients, "identities" in opts ? opts.identities : [opts], cipher.keyLength);
	try {
		const decryptor = createDecryptor(cipher.nodeName, contentKey.key, cipher.iv, {
			...(cipher.aead ? { authTagLength: cipher.icvLength! } : {}),
			...(cipher.effectiveKeyBits ? { effectiveKeyBits: cipher.effectiveKeyBits } : {}),
		});
		return { decryptor, keyValid: contentKey.valid, keyEncryption: contentKey.keyEncryption };
	} catch (error) {
		throw new As2Error("UNSUPPORTED_ALGORITHM", `cannot use ${cipher.nodeName}`, { cause: error });
	}
}

/**
 * The last block, once the whole ciphertext (and for GCM the tag) went in: a bad padding,
 * a tag mismatch, and a key that did not unwrap are the same error at the same point.
 */
export function finishDecryption(decryptor: ContentDecryptor, keyValid: boolean): Uint8Array {
	let last: Uint8Array;
	try {
		last = decryptor.final();
	} catch (error) {
		throw new As2Error("DECRYPTION_FAILED", CONTENT_FAILED, { cause: error });
	}
	// The key was random (RFC 3218 §2.3.2): same error, same point, as a padding failure.
	if (!keyValid) throw new As2Error("DECRYPTION_FAILED", CONTENT_FAILED);
	return last;
}

function recoverKey(
	recipients: ReadonlyArray<ReceivedKeyTrans>,
	identities: ReadonlyArray<DecryptIdentity>,
	keyLength: number,
): ContentKey {
	if (identities.length === 0) throw new As2Error("DECRYPTION_FAILED", "no private key to decrypt with");
	// Every identity is tried, whatever the outcome, so timing does not tell which worked.
	const results = identities.map((id) => unwrapContentKey(recipients, id.privateKey, id.certificate, keyLength));
	return results.find((r) => r.valid) ?? results[0]!;
}

async function* streamContent(
	ber: BerReader,
	encrypted: Awaited<ReturnType<BerReader["readHeader"]>>,
	cipher: ContentCipher,
	decryptor: ContentDecryptor,
	keyValid: boolean,
): Chunks {
	try {
		for await (const chunk of cipherChunks(ber.octetString(encrypted), decryptor)) yield chunk;
		await ber.leave(); // EncryptedContentInfo
		if (cipher.aead) decryptor.setAuthTag(await readMac(ber, cipher.icvLength!));
		await ber.leave(); // EnvelopedData / AuthEnvelopedData: unprotectedAttrs or unauthAttrs skipped
		await readContentInfoEnd(ber);
		const last = finishDecryption(decryptor, keyValid);
		if (last.byteLength > 0) yield last;
	} catch (error) {
		throw isAs2Error(error) ? error : new As2Error("DECRYPTION_FAILED", CONTENT_FAILED, { cause: error });
	} finally {
		await ber.input.return();
	}
}
