import { DIGESTS, type DigestAlgorithm } from "../algorithms.ts";
import { type CertificateFields, readCertificateFields } from "../certs/certificate-fields.ts";
import { privateKeyMatches } from "../certs/certificate-key.ts";
import { der, derOctetString, derOid, derSmallInteger, derTime, encodeDer, tlvSize } from "../certs/der-writer.ts";
import { checkSigningKeySize } from "../certs/key-size.ts";
import { id_data, id_signedData } from "../certs/oids.ts";
import {
	createDigest,
	createStreamSigner,
	type Digest,
	digestBytes,
	type PrivateKey,
	rsaKeyBits,
	type SignatureParameters,
	type StreamSigner,
	signBytes,
	signBytesAsync,
} from "../crypto/index.ts";
import { As2Error, isAs2Error } from "../errors/index.ts";
import { digestAlgorithmIdentifier, signatureAlgorithmIdentifier } from "./signed-algorithms.ts";
import { encodeSignedAttributes } from "./signed-attributes.ts";
import {
	fillFields,
	fillTemplate,
	fitsTime,
	makeTemplate,
	placeSignature,
	type SignedDataTemplate,
} from "./signed-data-template.ts";

export { inspectSignedData, type SignatureInfo } from "./signed-inspect.ts";
export { type VerifyOptions, verifyDetached } from "./signed-verify.ts";

export interface SignOptions {
	privateKey: PrivateKey;
	/**
	 * The signer's certificate, DER. What a signature needs of the key and certificate is
	 * prepared once per key object and certificate array: pass the same ones message after
	 * message, and new ones (not the same arrays changed in place) when they are rotated.
	 */
	certificate: Uint8Array;
	/** Issuer certificates to include, DER. */
	chain?: Uint8Array[];
	digest: DigestAlgorithm;
	/** Default: "pss" for an RSA-PSS key, else "pkcs1". */
	scheme?: "pkcs1" | "pss";
	/** RFC 5652 §5.3 signed attributes (content-type, signing-time, message-digest). Default true. */
	signedAttributes?: boolean;
	/**
	 * RFC 6211 CMSAlgorithmProtection attribute. Default true; turn it off for IBM Sterling B2B
	 * Integrator and DataPower, which reject it (OpenAS2 `remove_cms_algorithm_protection_attrib`).
	 */
	algorithmProtection?: boolean;
	/** Default: when the signer is created. */
	signingTime?: Date;
}

/** A streaming detached signer (RFC 5652 §5, RFC 5751 §3.5.3 multipart/signed). */
export interface DetachedSigner {
	/** The exact DER length `finish()` returns, known before any `update()`. */
	readonly size: number;
	update(chunk: Uint8Array): void;
	/** DER ContentInfo(SignedData) without eContent (detached), certificates included. */
	finish(): Uint8Array;
	/**
	 * {@link finish} with the RSA operation in libuv's thread pool when there are signed
	 * attributes (the default). Without them the signature covers the content, which only the
	 * Sign object fed the stream has seen: that one is made in the loop.
	 */
	finishAsync(): Promise<Uint8Array>;
	/** The content digest (the MIC of RFC 4130 §7.3.1), after `finish()`. */
	contentDigest(): Uint8Array;
}

/** What stays the same from message to message for one key, certificate, chain and options. */
interface SigningIdentity {
	key: PrivateKey;
	digest: DigestAlgorithm;
	params: SignatureParameters;
	signatureLength: number;
	withAttributes: boolean;
	algorithmProtection: boolean;
	chain: readonly Uint8Array[];
	certificates: Uint8Array[];
	signer: CertificateFields;
	/** One per signing-time form (UTCTime until 2049, GeneralizedTime after), made on first use. */
	templates: SignedDataTemplate[];
}

interface Prepared {
	identity: SigningIdentity;
	template: SignedDataTemplate;
	/** The DER signing-time; absent without signed attributes. */
	time: Uint8Array | undefined;
}

/**
 * Starts a detached CMS signature over content streamed through `update()`. With signed
 * attributes the content is hashed and the attributes are signed; without them the RSA
 * signature covers the content itself (a node Sign object fed the stream). Either way
 * nothing is buffered, so 2 GB payloads are fine, and `size` is exact up front: an RSA
 * signature is as long as the modulus and signing-time has a fixed-length encoding.
 *
 * @example
 * const signer = createDetachedSigner({ privateKey, certificate, digest: "sha256" });
 * for await (const chunk of content) signer.update(chunk);
 * const p7s = signer.finish(); // signer.size === p7s.byteLength
 * const mic = signer.contentDigest();
 */
export function createDetachedSigner(opts: SignOptions): DetachedSigner {
	const prepared = prepare(opts);
	const { identity } = prepared;
	const digest: Digest = createDigest(identity.digest);
	const streamSigner: StreamSigner | undefined = identity.withAttributes
		? undefined
		: createStreamSigner(identity.key, identity.params);
	let contentDigest: Uint8Array | undefined;
	const finalDigest = (): Uint8Array => {
		if (contentDigest) throw new As2Error("SIGNING_FAILED", "finish() called twice");
		contentDigest = digest.digest();
		return contentDigest;
	};
	return {
		size: prepared.template.der.byteLength,
		update(chunk) {
			if (contentDigest) throw new As2Error("SIGNING_FAILED", "update() after finish()");
			digest.update(chunk);
			streamSigner?.update(chunk);
		},
		finish() {
			return signedData(prepared, finalDigest(), streamSigner);
		},
		async finishAsync() {
			// Without signed attributes only the Sign object fed the stream can make the signature.
			return streamSigner
				? signedData(prepared, finalDigest(), streamSigner)
				: signedDataInPool(prepared, finalDigest(), undefined);
		},
		contentDigest() {
			if (!contentDigest) throw new As2Error("SIGNING_FAILED", "contentDigest() before finish()");
			return contentDigest;
		},
	};
}

/**
 * Signs a buffered content (small messages, MDNs).
 *
 * @example
 * const p7s = signDetached(mdnBytes, { privateKey, certificate, digest: "sha256" });
 */
export function signDetached(content: Uint8Array, opts: SignOptions): Uint8Array {
	return signBufferedDetached(content, opts).der;
}

/** {@link signDetached} with the RSA operation in libuv's thread pool, off the event loop. */
export async function signDetachedAsync(content: Uint8Array, opts: SignOptions): Promise<Uint8Array> {
	return (await signBufferedDetachedAsync(content, opts)).der;
}

/**
 * Signs a buffered content and gives its digest too (the MIC of RFC 4130 §7.3.1): with signed
 * attributes the content is hashed in one call, without a hash object kept for a stream.
 */
export function signBufferedDetached(content: Uint8Array, opts: SignOptions): SignedContent {
	const prepared = prepare(opts);
	const { key, params } = prepared.identity;
	const contentDigest = digestBytes(prepared.identity.digest, content);
	const unsigned = unsignedData(prepared, contentDigest, content);
	return {
		der: placeSignature(prepared.template, unsigned.der, signBytes(key, params, unsigned.toSign)),
		contentDigest,
	};
}

/**
 * {@link signBufferedDetached} with the RSA operation in libuv's thread pool, off the event
 * loop: what a server signing small messages between requests uses (issue #20).
 */
export async function signBufferedDetachedAsync(content: Uint8Array, opts: SignOptions): Promise<SignedContent> {
	const prepared = prepare(opts);
	const contentDigest = digestBytes(prepared.identity.digest, content);
	return { der: await signedDataInPool(prepared, contentDigest, content), contentDigest };
}

export interface SignedContent {
	/** DER ContentInfo(SignedData), detached. */
	der: Uint8Array;
	contentDigest: Uint8Array;
}

/** {@link signedData} with the RSA operation in the thread pool. */
async function signedDataInPool(
	prepared: Prepared,
	contentDigest: Uint8Array,
	content: Uint8Array | undefined,
): Promise<Uint8Array> {
	const { key, params } = prepared.identity;
	const unsigned = unsignedData(prepared, contentDigest, content);
	return placeSignature(prepared.template, unsigned.der, await signBytesAsync(key, params, unsigned.toSign));
}

/**
 * The SignedData up to its signature, and the bytes the signature covers: the signed
 * attributes, or without them the content itself (RFC 5652 §5.4), which a streamed content has
 * none to give.
 */
function unsignedData(
	prepared: Prepared,
	contentDigest: Uint8Array,
	content: Uint8Array | undefined,
): { der: Uint8Array; toSign: Uint8Array } {
	const unsigned = fillFields(prepared.template, { time: prepared.time, digest: contentDigest });
	const toSign = unsigned.signedAttributes ?? content;
	if (!toSign) throw new As2Error("INTERNAL_ERROR", "a signature without signed attributes needs the content");
	return { der: unsigned.der, toSign };
}

/** The DER ContentInfo(SignedData) once the content digest is known: the identity's template filled in. */
function signedData(prepared: Prepared, contentDigest: Uint8Array, streamSigner: StreamSigner | undefined): Uint8Array {
	const { identity } = prepared;
	return fillTemplate(prepared.template, { time: prepared.time, digest: contentDigest }, (attributes) =>
		attributes ? signBytes(identity.key, identity.params, attributes) : streamSigner!.sign(),
	);
}

function prepare(opts: SignOptions): Prepared {
	const identity = signingIdentityOf(opts);
	const signingTime = opts.signingTime ?? new Date();
	const time = identity.withAttributes ? derTime(signingTime) : undefined;
	let template = identity.templates.find((t) => !time || fitsTime(t, time));
	if (!template) {
		template = templateOf(identity, signingTime);
		identity.templates.push(template);
	}
	return { identity, template, time };
}

/**
 * Signing identities by key object, then certificate array: a rotated key or certificate is a
 * new object (the server imports each certificate version once), so it gets its own entry and
 * template, and the old ones go with their objects. The arrays must not change in place.
 */
const identities = new WeakMap<PrivateKey, WeakMap<Uint8Array, SigningIdentity[]>>();
/** Variants of one key and certificate (digests, schemes, chains) kept at most. */
const VARIANTS_PER_CERTIFICATE = 8;

function signingIdentityOf(opts: SignOptions): SigningIdentity {
	const key = opts.privateKey as PrivateKey | undefined;
	const variants = key && typeof key === "object" ? identities.get(key)?.get(opts.certificate) : undefined;
	const scheme = opts.scheme ?? (key?.asymmetricKeyType === "rsa-pss" ? "pss" : "pkcs1");
	const chain = opts.chain ?? [];
	const found = variants?.find(
		(identity) =>
			identity.digest === opts.digest &&
			identity.params.scheme === scheme &&
			identity.withAttributes === (opts.signedAttributes !== false) &&
			identity.algorithmProtection === (opts.algorithmProtection !== false) &&
			identity.chain.length === chain.length &&
			identity.chain.every((certificate, i) => certificate === chain[i]),
	);
	if (found) return found;
	const made = makeSigningIdentity(opts);
	let perKey = identities.get(made.key);
	if (!perKey) {
		perKey = new WeakMap();
		identities.set(made.key, perKey);
	}
	const list = perKey.get(opts.certificate) ?? [];
	if (list.length >= VARIANTS_PER_CERTIFICATE) list.shift();
	list.push(made);
	perKey.set(opts.certificate, list);
	return made;
}

function makeSigningIdentity(opts: SignOptions): SigningIdentity {
	const key = opts.privateKey as PrivateKey | undefined;
	if (!key || typeof key !== "object" || key.type !== "private") {
		throw new As2Error("SIGNING_FAILED", "a private key is required to sign");
	}
	const keyType = key.asymmetricKeyType;
	if (keyType !== "rsa" && keyType !== "rsa-pss") {
		throw new As2Error(
			"UNSUPPORTED_ALGORITHM",
			`signing with a ${keyType ?? "unknown"} key is not supported (RSA only)`,
		);
	}
	const digest = opts.digest;
	if (!DIGESTS[digest]) throw new As2Error("UNSUPPORTED_ALGORITHM", `unknown digest algorithm "${String(digest)}"`);
	const bits = rsaKeyBits(key);
	checkSigningKeySize(digest, bits);
	const scheme = opts.scheme ?? (keyType === "rsa-pss" ? "pss" : "pkcs1");
	if (scheme !== "pkcs1" && scheme !== "pss")
		throw new As2Error("UNSUPPORTED_ALGORITHM", `unknown signature scheme "${scheme}"`);
	if (keyType === "rsa-pss" && scheme === "pkcs1") {
		throw new As2Error("SIGNING_FAILED", "an RSA-PSS key (RFC 4055 §1.2) can only make PSS signatures");
	}
	let signer: CertificateFields;
	const chain = opts.chain ?? [];
	try {
		signer = readCertificateFields(opts.certificate);
		for (const certificate of chain) readCertificateFields(certificate);
	} catch (error) {
		if (isAs2Error(error))
			throw new As2Error("SIGNING_FAILED", `unusable signing certificate: ${error.message}`, { cause: error });
		throw error;
	}
	if (!privateKeyMatches(key, opts.certificate)) {
		throw new As2Error("SIGNING_FAILED", "the private key does not belong to the signing certificate");
	}
	return {
		key,
		digest,
		params: { digest, scheme, saltLength: DIGESTS[digest].size },
		signatureLength: Math.ceil(bits / 8),
		withAttributes: opts.signedAttributes !== false,
		algorithmProtection: opts.algorithmProtection !== false,
		chain: [...chain],
		certificates: [opts.certificate, ...chain],
		signer,
		templates: [],
	};
}

/** The identity's SignedData encoded once, with a zero digest and signature, and its holes found. */
function templateOf(identity: SigningIdentity, signingTime: Date): SignedDataTemplate {
	const attributes = identity.withAttributes
		? signedAttributesOf(identity, signingTime, new Uint8Array(DIGESTS[identity.digest].size))
		: undefined;
	const der = encodeDer(encodeContentInfo(identity, attributes, new Uint8Array(identity.signatureLength)));
	const signatureTail =
		signatureAlgorithmIdentifier(identity.digest, identity.params.scheme).byteLength +
		tlvSize(identity.signatureLength);
	return makeTemplate(der, identity.signatureLength, signatureTail, attributes?.byteLength);
}

function signedAttributesOf(identity: SigningIdentity, signingTime: Date, messageDigest: Uint8Array): Uint8Array {
	return encodeSignedAttributes({
		messageDigest,
		signingTime,
		...(identity.algorithmProtection
			? {
					algorithmProtection: {
						digestAlgorithm: digestAlgorithmIdentifier(identity.digest),
						signatureAlgorithm: signatureAlgorithmIdentifier(identity.digest, identity.params.scheme),
					},
				}
			: {}),
	});
}

const VERSION_1 = derSmallInteger(1);
const ID_SIGNED_DATA = derOid(id_signedData);
const ENCAP_CONTENT_INFO = encodeDer(der(0x30, derOid(id_data)));

/**
 * RFC 5652 §3 ContentInfo around §5.1 SignedData (version 1: issuerAndSerialNumber, id-data)
 * with one §5.3 SignerInfo. eContent is absent: the content travels in the first part of
 * multipart/signed. The certificates go signer first (several receivers take the first).
 */
function encodeContentInfo(prepared: SigningIdentity, signedAttributes: Uint8Array | undefined, signature: Uint8Array) {
	const digestAlgorithm = digestAlgorithmIdentifier(prepared.digest);
	let signedAttrs: Uint8Array[] = [];
	if (signedAttributes) {
		// The signed SET OF, re-tagged [0] IMPLICIT (RFC 5652 §5.3); a copy, the signed bytes stay.
		const tagged = Uint8Array.from(signedAttributes);
		tagged[0] = 0xa0;
		signedAttrs = [tagged];
	}
	const signerInfo = der(
		0x30,
		VERSION_1,
		der(0x30, prepared.signer.issuer, prepared.signer.serialTlv),
		digestAlgorithm,
		...signedAttrs,
		signatureAlgorithmIdentifier(prepared.digest, prepared.params.scheme),
		derOctetString(signature),
	);
	const signedData = der(
		0x30,
		VERSION_1,
		der(0x31, digestAlgorithm),
		ENCAP_CONTENT_INFO,
		der(0xa0, ...prepared.certificates),
		der(0x31, signerInfo),
	);
	return der(0x30, ID_SIGNED_DATA, der(0xa0, signedData));
}
