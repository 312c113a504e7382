import { createHash } from "node:crypto";
import { As2Error, formatMic, micFromDigest, toChunks } from "@as2kit/core";
import type { BlobStore, MdnData, MessageRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { failMessage, transitionMessage } from "./message-transitions.ts";
import { SIMULATED_MDN_JOB } from "./send-job-kind.ts";

/** An async MDN from the simulated partner arrives this long after the send. */
const SIMULATED_ASYNC_MDN_MS = 1000;

/**
 * The test environment's simulated partner (decisions.md, Messages): nothing is transmitted;
 * the message moves queued → processing → sent → delivered with every event, a synthetic MDN
 * when one was asked for (at once for sync, a second later for async). A partner whose AS2 id
 * starts with FAIL makes test sends fail with PARTNER_UNREACHABLE instead.
 */
export async function simulateSend(deps: ServiceDeps, message: MessageRecord): Promise<void> {
	const { store, now } = deps;
	const at = now();
	const processing = await transitionMessage(
		deps,
		message,
		["queued", "processing"],
		{ status: "processing", attempts: message.attempts + 1, lastAttemptAt: at },
		() => [],
		at,
	);
	if (!processing) return;
	// interface spec, Message errors: PARTNER_NOT_FOUND "also for messages sent to a deleted partner"
	// (Partner active flag: DELETE removes the record). The live send fails a message queued
	// before the delete this way (send.ts); the simulated partner must not deliver it instead.
	const partner = await store.partners.findVisible(processing.tenantId, processing.accountId, processing.partnerId);
	if (!partner) {
		await failMessage(deps, processing, { code: "PARTNER_NOT_FOUND", message: "the partner was deleted" }, at);
		return;
	}
	if (processing.partnerAs2Id.startsWith("FAIL")) {
		await failMessage(
			deps,
			processing,
			{ code: "PARTNER_UNREACHABLE", message: "simulated partner: unreachable (test environment)" },
			at,
		);
		return;
	}
	const sent = { sentAt: at, transmissionTimeMs: 0, mic: await payloadMic(deps.blobs, processing) };
	if (processing.mdnMode === "none") {
		await transitionMessage(deps, processing, ["processing"], { status: "sent", ...sent }, () => ["sent"], at);
		return;
	}
	if (processing.mdnMode === "sync") {
		await transitionMessage(
			deps,
			processing,
			["processing"],
			{
				status: "delivered",
				deliveredAt: at,
				mdnStatus: "received",
				mdnData: syntheticMdn({ ...processing, mic: sent.mic }, at),
				...sent,
			},
			() => ["sent", "delivered"],
			at,
		);
		return;
	}
	await store.transaction(async (tx) => {
		const moved = await transitionMessage(
			{ ...deps, store: tx },
			processing,
			["processing"],
			{ status: "sent", mdnStatus: "pending", ...sent },
			() => ["sent"],
			at,
		);
		if (moved) {
			await tx.jobs.enqueue(
				{
					kind: SIMULATED_MDN_JOB,
					key: `simulated-mdn:${message.id}`,
					payload: { messageId: message.id },
					runAt: new Date(at.getTime() + SIMULATED_ASYNC_MDN_MS),
				},
				at,
			);
		}
	});
}

/** The simulated partner's async MDN. */
export async function deliverSimulatedMdn(deps: ServiceDeps, messageId: string): Promise<void> {
	const message = await deps.store.messages.getById(messageId);
	if (message?.status !== "sent") return;
	const at = deps.now();
	await transitionMessage(
		deps,
		message,
		["sent"],
		{ status: "delivered", deliveredAt: at, mdnStatus: "received", mdnData: syntheticMdn(message, at) },
		() => ["delivered"],
		at,
	);
}

/**
 * The MIC a partner would return for the payload (RFC 4130 §7.3.1), SHA-256 over its bytes as
 * uploaded, so that `openssl dgst -sha256 -binary order.edi | base64` shows the same value.
 * Nothing is built for the simulated partner, so there is no MIME entity to digest instead.
 */
async function payloadMic(blobs: BlobStore, message: MessageRecord): Promise<string | null> {
	if (!message.payloadKey) return null;
	const stream = await blobs.get(message.payloadKey);
	if (!stream) throw new As2Error("INTERNAL_ERROR", `the payload blob ${message.payloadKey} is missing`);
	const hash = createHash("sha256");
	for await (const chunk of toChunks(stream)) hash.update(chunk);
	return formatMic(micFromDigest(hash.digest(), "sha256"));
}

function syntheticMdn(message: MessageRecord, at: Date): MdnData {
	return {
		disposition: "automatic-action/MDN-sent-automatically; processed",
		receivedContentMic: message.mic,
		reportingUa: "as2kit simulated partner (test environment)",
		originalMessageId: message.messageId,
		finalRecipient: message.toAs2Id,
		signed: false,
		signatureValid: null,
		micMatches: message.mic !== null,
		messageId: null,
		receivedAt: at.toISOString(),
	};
}
