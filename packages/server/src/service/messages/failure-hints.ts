import type { ParsedMdn } from "@as2kit/core";
import type { MessageRecord, PartnerRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { type CompatibilityHint, hintFromAnswer } from "../partners/compatibility-hints.ts";
import type { KeyMaterial } from "./key-material.ts";
import { hintForMicMismatch } from "./mic-hints.ts";
import { messageIdDomain } from "./submit.ts";

type Payload = { size: number; open(): AsyncIterable<Uint8Array> };

/**
 * The compatibility hint of a failed exchange (issue #17, Hints), for the message's error and for
 * POST /v1/partners/{id}/test alike: a negative MDN or an HTTP refusal is read for a known quirk
 * (compatibility-hints.ts), a MIC mismatch is rebuilt under the known misreadings (mic-hints.ts).
 */
export function createFailureHints(deps: ServiceDeps, keys: KeyMaterial) {
	const domain = messageIdDomain(deps.config.publicUrl);
	return {
		async afterMdn(
			message: MessageRecord,
			partner: PartnerRecord,
			mdn: ParsedMdn,
			failure: { code: string },
			payload?: Payload,
		): Promise<CompatibilityHint | null> {
			if (failure.code === "MIC_MISMATCH") {
				if (!mdn.mic) return null;
				const context = { keys, blobs: deps.blobs, domain, at: deps.now() };
				return hintForMicMismatch(context, message, partner, mdn.mic, payload);
			}
			const text = [mdn.disposition.raw, mdn.text ?? ""].join("\n");
			return hintFromAnswer({ code: failure.code, text }, partner);
		},

		afterHttpRefusal(partner: PartnerRecord, httpStatus: number, body: string): CompatibilityHint | null {
			return hintFromAnswer({ code: "PARTNER_REJECTED", text: body, httpStatus }, partner);
		},
	};
}

export type FailureHints = ReturnType<typeof createFailureHints>;
