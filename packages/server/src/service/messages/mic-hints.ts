import { canonicalizeLineEndings, canonicalSize, type Mic, micEquals, toChunks } from "@as2kit/core";
import type { BlobStore, CompatibilitySwitches, MessageRecord, PartnerRecord } from "@as2kit/core/store";
import type { CompatibilityHint } from "../partners/compatibility-hints.ts";
import { effectiveCompatibility } from "../partners/compatibility-profiles.ts";
import { buildOutbound, micAlgorithmOf } from "./build-outbound.ts";
import type { KeyMaterial } from "./key-material.ts";

type Payload = { size: number; open(): AsyncIterable<Uint8Array> };

interface Reading {
	partner: PartnerRecord;
	payload: Payload;
	hint: CompatibilityHint;
}

/**
 * A way a partner is known to compute another MIC than ours: the partner settings and payload
 * under which our own build yields the partner's MIC, with the setting that aligns us; null
 * when it cannot explain this message.
 */
type MicQuirk = (
	message: MessageRecord,
	partner: PartnerRecord,
	payload: Payload,
	received: Mic,
) => Promise<Reading | null>;

const QUIRKS: readonly MicQuirk[] = [
	// The MIC of our very bytes, in another digest than the one signed-receipt-micalg asked for.
	async (_message, partner, payload, received) =>
		received.algorithm === micAlgorithmOf(partner)
			? null
			: {
					partner,
					payload,
					hint: {
						setting: "mdn.algorithm",
						value: received.algorithm,
						why: `The partner's MIC is the MIC of our content in ${received.algorithm}, not in the digest we asked for in signed-receipt-micalg (as2-anchors §D.4, §D.5): ask for ${received.algorithm}`,
					},
				},
	// phase2#68, phase2#140: we compressed before signing, so the signed content is the
	// compressed entity, but the partner took the MIC of what it decompressed — the MIC it would
	// be had we signed first (RFC 5402 allows both orders).
	async (message, partner, payload) => {
		if (!message.compressed || !message.signed || switchesOf(partner).compressOrder !== "before-sign") return null;
		return {
			partner: withSwitches(partner, { compressOrder: "after-sign" }),
			payload,
			hint: {
				setting: "compatibility.compress_order",
				value: "after-sign",
				why: "The partner's MIC is the MIC of our content before compression: it takes the MIC as if we had signed before compressing, the other order RFC 5402 allows (phase2#68, phase2#140; as2-anchors §C.1, §D.10)",
			},
		};
	},
	// phase2#12, pyas2-lib 1.4.2 "force canonicalize binary": bare LF turned into CRLF before
	// hashing. A base64 part has no bare LF left to turn.
	async (message, partner, payload) => {
		if (!message.signed || switchesOf(partner).transferEncoding !== "binary") return null;
		const size = await canonicalSize(payload);
		if (size === payload.size) return null;
		return {
			partner,
			payload: { size, open: () => canonicalizeLineEndings(payload.open()) },
			hint: {
				setting: "compatibility.transfer_encoding",
				value: "base64",
				profile: "axway",
				why: "The partner's MIC is the MIC of our content with its bare LF line ends turned into CRLF: it canonicalizes binary content before hashing (phase2#12, pyas2-lib 1.4.2; as2-anchors §C.3, §D.1); a base64 part leaves nothing to canonicalize",
			},
		};
	},
];

/**
 * Why a partner's Received-Content-MIC differs from ours, when a known quirk explains it: each
 * quirk's reading is built again as ours was (nothing is sent), in the MDN's digest, and the
 * first whose MIC is the partner's gives the hint. A pass over the payload per quirk, so only
 * for a MIC_MISMATCH.
 */
export async function hintForMicMismatch(
	context: { keys: KeyMaterial; blobs: BlobStore; domain: string; at: Date },
	message: MessageRecord,
	partner: PartnerRecord,
	received: Mic,
	payload?: Payload,
): Promise<CompatibilityHint | null> {
	const original = payload ?? storedPayload(context.blobs, message);
	if (!original) return null;
	for (const quirk of QUIRKS) {
		const reading = await quirk(message, partner, original, received);
		if (!reading) continue;
		const mic = await micOf(context, message, withMicAlgorithm(reading.partner, received.algorithm), reading.payload);
		if (mic && micEquals(mic, received)) return reading.hint;
	}
	return null;
}

/** The MIC our message would have had: the same build, its body read through, nothing sent. */
async function micOf(
	context: { keys: KeyMaterial; blobs: BlobStore; domain: string; at: Date },
	message: MessageRecord,
	partner: PartnerRecord,
	payload: Payload,
): Promise<Mic | null> {
	try {
		const built = await buildOutbound({ ...message, mdnMode: "sync" }, partner, {
			keys: context.keys,
			blobs: context.blobs,
			receiptUrl: null,
			domain: context.domain,
			at: context.at,
			payload,
		});
		for await (const _ of built.body.open()) {
			// read through: the MIC is known once the signed (or encrypted) content has passed
		}
		return await built.mic();
	} catch {
		// A certificate expired or removed since the message was sent: no reading, no hint.
		return null;
	}
}

function storedPayload(blobs: BlobStore, message: MessageRecord): Payload | null {
	const key = message.payloadKey;
	if (!key) return null;
	return {
		size: message.bytes,
		async *open() {
			const stream = await blobs.get(key);
			if (stream) yield* toChunks(stream);
		},
	};
}

const switchesOf = (partner: PartnerRecord) => effectiveCompatibility(partner.settings.compatibility);

function withMicAlgorithm(partner: PartnerRecord, algorithm: Mic["algorithm"]): PartnerRecord {
	return { ...partner, settings: { ...partner.settings, mdn: { ...partner.settings.mdn, signed: true, algorithm } } };
}

function withSwitches(partner: PartnerRecord, switches: Partial<CompatibilitySwitches>): PartnerRecord {
	return {
		...partner,
		settings: { ...partner.settings, compatibility: { ...partner.settings.compatibility, ...switches } },
	};
}
