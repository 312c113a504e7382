import {
	As2Error,
	type ContentEncryptionAlgorithm,
	type DigestAlgorithm,
	type PackOptions,
	type PackResult,
	pack,
	toChunks,
} from "@as2kit/core";
import type {
	BlobStore,
	CompatibilityChoice,
	CompatibilitySwitches,
	EncryptAlgorithm,
	MessageRecord,
	PartnerRecord,
	SignAlgorithm,
} from "@as2kit/core/store";
import { effectiveCompatibility } from "../partners/compatibility-profiles.ts";
import { withFields } from "../with-fields.ts";
import type { KeyMaterial } from "./key-material.ts";

const CIPHER: Record<EncryptAlgorithm, ContentEncryptionAlgorithm> = {
	"3DES": "3des",
	AES128_CBC: "aes128",
	AES192_CBC: "aes192",
	AES256_CBC: "aes256",
	AES128_GCM: "aes128-gcm",
	AES256_GCM: "aes256-gcm",
};
const DIGEST: Record<SignAlgorithm, DigestAlgorithm> = {
	SHA1withRSA: "sha1",
	SHA256withRSA: "sha256",
	SHA384withRSA: "sha384",
	SHA512withRSA: "sha512",
};

/** The spec leaves the algorithms nullable; these are what we use then. */
const DEFAULT_SIGN: SignAlgorithm = "SHA256withRSA";
const DEFAULT_ENCRYPT: EncryptAlgorithm = "AES256_CBC";

export interface OutboundContext {
	keys: KeyMaterial;
	blobs: BlobStore;
	/** Where partners send async MDNs to us (Receipt-Delivery-Option). */
	receiptUrl: string | null;
	domain: string;
	at: Date;
	/** The payload, when not the message's blob (a connectivity test's text). */
	payload?: { size: number; open(): AsyncIterable<Uint8Array> };
}

/**
 * The AS2 request for a message, as the partner's settings want it (algorithms, compression
 * order, transfer encoding, signed attributes, MDN request) and with the message's own
 * Message-ID, which stays the same on every attempt so the partner can de-duplicate
 * (RFC 4130 §5.3.3; as2-anchors §C8). The payload streams from the blob store.
 */
export async function buildOutbound(
	message: MessageRecord,
	partner: PartnerRecord,
	context: OutboundContext,
): Promise<PackResult> {
	const settings = partner.settings;
	const compatibility = partnerSwitches(partner);
	const digest = signDigestOf(partner);
	const options: PackOptions = {
		payload: context.payload ?? { size: message.bytes, open: () => openPayload(context.blobs, message.payloadKey!) },
		contentType: message.contentType,
		from: message.fromAs2Id,
		to: message.toAs2Id,
		messageId: message.messageId,
		date: context.at,
		transferEncoding: compatibility.transferEncoding,
		headers: withFields(settings.headers, message.headers),
		messageIdDomain: context.domain,
		...(message.filename ? { filename: message.filename } : {}),
		...(message.subject ? { subject: message.subject } : {}),
	};
	if (message.signed) {
		const identity = await context.keys.signingIdentity(message.tenantId, context.at);
		options.sign = {
			privateKey: identity.privateKey,
			certificate: identity.certificate,
			chain: identity.chain,
			digest,
			signedAttributes: compatibility.signedAttributes,
			algorithmProtection: compatibility.algorithmProtection,
		};
	}
	if (message.encrypted) {
		options.encrypt = {
			certificates: [await context.keys.encryptionCertificate(message.partnerId, context.at)],
			algorithm: CIPHER[partner.encryptAlgorithm ?? DEFAULT_ENCRYPT],
			keyEncryption: compatibility.keyEncryption,
		};
	}
	if (message.compressed) options.compress = message.signed ? compatibility.compressOrder : "before-sign";
	if (message.mdnMode !== "none") {
		const micAlgorithm = micAlgorithmOf(partner);
		const url = settings.mdn.url ?? context.receiptUrl;
		if (message.mdnMode === "async" && !url) {
			throw new As2Error(
				"INVALID_AS2_HEADERS",
				"an async MDN needs AS2_PUBLIC_URL (or the partner's mdn.url) for Receipt-Delivery-Option",
			);
		}
		options.mdn = {
			mode: message.mdnMode,
			signed: settings.mdn.signed ? [micAlgorithm] : false,
			...(message.mdnMode === "async" ? { url: url! } : {}),
		};
	}
	return pack(options);
}

const signDigestOf = (partner: PartnerRecord): DigestAlgorithm => DIGEST[partner.signAlgorithm ?? DEFAULT_SIGN];

/** The digest our MDN request asks the partner to return the MIC in (signed-receipt-micalg). */
export function micAlgorithmOf(partner: PartnerRecord): DigestAlgorithm {
	return partner.settings.mdn.algorithm ?? signDigestOf(partner);
}

async function* openPayload(blobs: BlobStore, key: string): AsyncIterable<Uint8Array> {
	// Without a web stream where the store can (BlobStore.chunks: issue #20).
	const body = blobs.chunks ? await blobs.chunks(key) : await blobs.get(key);
	if (!body) throw new As2Error("INTERNAL_ERROR", `the payload blob ${key} is missing`);
	yield* toChunks(body);
}

/**
 * The switches a partner's messages are built and sent with (`effectiveCompatibility`), worked
 * out once per version of its settings rather than twice per message: the configuration cache
 * hands out the same frozen record until the partner changes (issue #20). Frozen, as it is shared.
 */
export function partnerSwitches(partner: PartnerRecord): Readonly<CompatibilitySwitches> {
	const choice = partner.settings.compatibility;
	let switches = SWITCHES_OF.get(choice);
	if (!switches) {
		switches = Object.freeze(effectiveCompatibility(choice));
		SWITCHES_OF.set(choice, switches);
	}
	return switches;
}

const SWITCHES_OF = new WeakMap<CompatibilityChoice, Readonly<CompatibilitySwitches>>();
