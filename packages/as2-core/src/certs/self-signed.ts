import { AsnParser, AsnSerializer, OctetString } from "@peculiar/asn1-schema";
import {
	AlgorithmIdentifier,
	AttributeTypeAndValue,
	AttributeValue,
	Certificate,
	Extension,
	Extensions,
	id_ce_keyUsage,
	id_ce_subjectKeyIdentifier,
	KeyUsage,
	KeyUsageFlags,
	Name,
	RelativeDistinguishedName,
	SubjectKeyIdentifier,
	SubjectPublicKeyInfo,
	TBSCertificate,
	Validity,
	Version,
} from "@peculiar/asn1-x509";
import {
	digestBytes,
	exportPrivateKeyPem,
	importPrivateKey,
	type PrivateKey,
	randomBytes,
	signBytes,
} from "../crypto/index.ts";
import { As2Error } from "../errors/index.ts";
import { checkSigningKeySize } from "./key-size.ts";
import { sha256WithRSAEncryption } from "./oids.ts";
import { toPem } from "./pem.ts";

export interface SelfSignedOptions {
	commonName: string;
	organization?: string;
	/** RSA modulus size; default 2048 (the interface spec's minimum for SHA-256 signatures). */
	bits?: number;
	/**
	 * An RSA key pair to certify (extractable, of `bits` bits) instead of a new one: test suites
	 * hand out pre-generated keys, as a 2048-bit generation costs 0.1-0.3 s of CPU.
	 */
	keyPair?: CryptoKeyPair;
	/** Validity in days from `notBefore`; default 365. */
	days?: number;
	notBefore?: Date;
	notAfter?: Date;
}

export interface GeneratedIdentity {
	privateKey: PrivateKey;
	/** PKCS#8 PEM, unencrypted. */
	privateKeyPem: string;
	certificate: Uint8Array;
	certificatePem: string;
}

const DAY = 86_400_000;

/**
 * A new RSA key and a self-signed SHA-256 certificate (RFC 5280) for AS2 signing and
 * encryption: keyUsage digitalSignature + keyEncipherment (critical), subjectKeyIdentifier.
 * The key is generated with WebCrypto (`globalThis.crypto`), so the event loop is not blocked.
 *
 * @example
 * const { certificatePem, privateKeyPem } = await generateSelfSigned({ commonName: "as2.example.com" });
 */
export async function generateSelfSigned(opts: SelfSignedOptions): Promise<GeneratedIdentity> {
	const bits = opts.bits ?? 2048;
	if (!Number.isInteger(bits) || bits > 16384 || bits % 8 !== 0) {
		throw new As2Error("VALIDATION_FAILED", `invalid RSA key size ${bits}`);
	}
	checkSigningKeySize("sha256", bits, "validate");
	if (!opts.commonName) throw new As2Error("VALIDATION_FAILED", "commonName is required");
	const notBefore = new Date(Math.floor((opts.notBefore ?? new Date()).getTime() / 1000) * 1000);
	const notAfter = opts.notAfter ?? new Date(notBefore.getTime() + (opts.days ?? 365) * DAY);
	if (notAfter.getTime() <= notBefore.getTime())
		throw new As2Error("VALIDATION_FAILED", "notAfter must be after notBefore");

	const subtle = globalThis.crypto.subtle;
	const keys =
		opts.keyPair ??
		((await subtle.generateKey(
			{ name: "RSASSA-PKCS1-v1_5", modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
			true,
			["sign", "verify"],
		)) as CryptoKeyPair);
	const modulusLength = (keys.privateKey.algorithm as RsaHashedKeyAlgorithm).modulusLength;
	if (modulusLength !== bits)
		throw new As2Error("VALIDATION_FAILED", `the key pair has ${modulusLength} bits, not ${bits}`);
	const privateKey = importPrivateKey(new Uint8Array(await subtle.exportKey("pkcs8", keys.privateKey)));
	const spki = AsnParser.parse(new Uint8Array(await subtle.exportKey("spki", keys.publicKey)), SubjectPublicKeyInfo);

	const name = new Name([
		...(opts.organization ? [rdn("2.5.4.10", opts.organization)] : []),
		rdn("2.5.4.3", opts.commonName),
	]);
	// RFC 5280 §4.1.2.2: positive, at most 20 octets; 16 random octets with the top bit clear.
	const serial = randomBytes(16);
	serial[0] = (serial[0]! & 0x7f) | 0x01;
	const signatureAlgorithm = new AlgorithmIdentifier({ algorithm: sha256WithRSAEncryption, parameters: null });
	// RFC 5280 §4.2.1.2 method (1): SHA-1 of the subjectPublicKey bits.
	const keyId = digestBytes("sha1", new Uint8Array(spki.subjectPublicKey));
	const tbsCertificate = new TBSCertificate({
		version: Version.v3,
		serialNumber: serial.buffer as ArrayBuffer,
		signature: signatureAlgorithm,
		issuer: name,
		validity: new Validity({ notBefore, notAfter }),
		subject: name,
		subjectPublicKeyInfo: spki,
		extensions: new Extensions([
			new Extension({
				extnID: id_ce_keyUsage,
				critical: true,
				extnValue: new OctetString(
					AsnSerializer.serialize(new KeyUsage(KeyUsageFlags.digitalSignature | KeyUsageFlags.keyEncipherment)),
				),
			}),
			new Extension({
				extnID: id_ce_subjectKeyIdentifier,
				extnValue: new OctetString(AsnSerializer.serialize(new SubjectKeyIdentifier(keyId))),
			}),
		]),
	});
	const tbs = new Uint8Array(AsnSerializer.serialize(tbsCertificate));
	const signature = signBytes(privateKey, { digest: "sha256", scheme: "pkcs1" }, tbs);
	const certificate = new Uint8Array(
		AsnSerializer.serialize(
			new Certificate({ tbsCertificate, signatureAlgorithm, signatureValue: signature.buffer as ArrayBuffer }),
		),
	);
	return {
		privateKey,
		privateKeyPem: exportPrivateKeyPem(privateKey),
		certificate,
		certificatePem: toPem("CERTIFICATE", certificate),
	};
}

function rdn(type: string, value: string): RelativeDistinguishedName {
	return new RelativeDistinguishedName([
		new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) }),
	]);
}
