import { randomUUID } from "node:crypto";
import { formatMic, isAs2Error, type MdnRequest, type Mic, type MimeHeaders, parseMic, unpack } from "@as2kit/core";
import type { AccountRecord, MessageRecord, PartnerRecord, TenantRecord } from "@as2kit/core/store";
import { countReceivedMessage } from "../billing/usage.ts";
import { configReads } from "../config-cache/config-reads.ts";
import type { ServiceDeps } from "../deps.ts";
import { enqueueEpcisIndex } from "../epcis/index-job.ts";
import { recordEvent } from "../events.ts";
import { planOf } from "../plans.ts";
import { isConflictOn } from "../validation-error.ts";
import { messageEventData } from "../views/message-views.ts";
import { requiresEncrypted, requiresSigned } from "../views/partner-views.ts";
import { withFields } from "../with-fields.ts";
import { inboundReceipt } from "./attempts.ts";
import type { MdnReply } from "./inbound-mdn.ts";
import type { KeyMaterial } from "./key-material.ts";
import { openRawBody, type RawBody } from "./raw-body.ts";
import { SEND_MDN_JOB } from "./send-job-kind.ts";

export interface InboundOutcome {
	/** null: processed; otherwise why not (its MDN modifier comes from the error registry). */
	error: unknown;
	mic: Mic | undefined;
	/** The stored message (new, or the original of a duplicate). */
	message: MessageRecord | null;
	duplicate: boolean;
	/** The sync MDN `answer` built for the message stored (absent for a duplicate or a refusal). */
	reply?: MdnReply;
}

export interface InboundMessage {
	tenant: TenantRecord;
	partner: PartnerRecord;
	headers: MimeHeaders;
	messageId: string;
	mdnRequest: MdnRequest | undefined;
	/** The request body: in memory when small, else the stored raw blob. */
	body: Uint8Array | { blobKey: string };
	/** The tenant's account when the caller has read it already (undefined: read here). */
	account?: AccountRecord | null;
	/**
	 * The sync MDN a stored message is answered with, built before it is stored: its capture
	 * (the receipt's response) is then written in the message's own transaction, not in one of
	 * its own after it (issue #20: one commit less per message).
	 */
	answer?: (mic: Mic) => Promise<MdnReply>;
}

/**
 * Reads an inbound AS2 message (RFC 4130): decrypts, verifies and decompresses in whatever
 * order the partner used, with every active identity of the tenant (rollover) and the
 * partner's certificates; enforces the partner's required security; streams the payload to the
 * blob store; and stores the message as `received` with `message.received` — once per
 * (partner, Message-ID): a duplicate gets the original's MIC and no second event.
 *
 * A duplicate is found by the insert of the message, which the store refuses (CONFLICT), not
 * by a read before it: that read cost every message a SQLite transaction (a PostgreSQL round
 * trip) of its own, for the rare resend (issue #20). A duplicate is processed again, then; one
 * that fails to process now (a certificate since rolled over, a forged body) is still looked
 * up, and answered as the duplicate it is (decisions.md: the same disposition as the original).
 */
export async function processInbound(
	deps: ServiceDeps,
	keys: KeyMaterial,
	inbound: InboundMessage,
): Promise<InboundOutcome> {
	const { store, blobs, now, config } = deps;
	const { tenant, partner, messageId } = inbound;
	const original = () =>
		store.messages.findByMessageId(tenant.id, messageId, { direction: "inbound", partnerId: partner.id });
	const account =
		inbound.account !== undefined
			? inbound.account
			: await configReads(deps.configCache, store).account(tenant.accountId);
	const plan = planOf(account?.plan ?? "free", config.enterpriseLimits);
	const at = now();
	const payloadKey = `payloads/${at.toISOString().slice(0, 7)}/${randomUUID()}`;
	/** The stored payload's key, as the blob store chose it (BlobStore.put), once stored. */
	let stored: string | null = null;
	let raw: RawBody | null = null;
	try {
		raw = inbound.body instanceof Uint8Array ? null : await openRawBody(blobs, inbound.body.blobKey);
		const body = raw ? raw.chunks : (inbound.body as Uint8Array);
		const effective = { record: partner, type: "tenant" as const, masterPartnerId: null, override: null };
		const unpacked = await unpack({
			headers: inbound.headers,
			body,
			identities: await keys.decryptionIdentities(tenant.id),
			partnerCertificates: await keys.verificationCertificates(partner.id),
			at,
			requireSigned: requiresSigned(effective),
			requireEncrypted: requiresEncrypted(effective),
			maxDecompressedBytes: plan.maxPayloadBytes,
		});
		const blob = await blobs.put(payloadKey, unpacked.payload, { maxBytes: plan.maxPayloadBytes });
		stored = blob.key;
		const report = await unpacked.complete();
		const mdnMode = inbound.mdnRequest?.mode ?? "none";
		const record: MessageRecord = {
			id: "",
			accountId: tenant.accountId,
			tenantId: tenant.id,
			environment: "live",
			direction: "inbound",
			messageId,
			partnerId: partner.id,
			partnerName: partner.name,
			partnerAs2Id: partner.as2Id,
			partnerUrl: partner.url,
			status: "received",
			fromAs2Id: unpacked.from,
			toAs2Id: unpacked.to,
			subject: unpacked.subject ?? null,
			contentType: unpacked.contentType,
			filename: unpacked.filename ?? null,
			bytes: blob.bytes,
			compressed: unpacked.compressed,
			encrypted: unpacked.encrypted,
			signed: unpacked.signed,
			mdnMode,
			mdnStatus: mdnMode === "none" ? "none" : mdnMode === "sync" ? "received" : "pending",
			mdnData: null,
			rejectedMdns: [],
			mic: formatMic(report.mic),
			priority: "normal",
			headers: {},
			payloadKey: blob.key,
			scheduledAt: null,
			attempts: 1,
			lastAttemptAt: at,
			sentAt: null,
			deliveredAt: null,
			failedAt: null,
			mdnDeadline: null,
			errorCode: null,
			errorMessage: null,
			transmissionTimeMs: null,
			details: {
				layers: report.layers.map((layer) => ({ ...layer })),
				mic_reading: report.micReading,
				...(report.signatureVariant ? { signature_variant: report.signatureVariant } : {}),
				payload_sha256: blob.sha256,
				...(inbound.mdnRequest
					? { mdn_request: withFields(inbound.mdnRequest, { micAlgorithms: [...inbound.mdnRequest.micAlgorithms] }) }
					: {}),
			},
			createdAt: at,
			updatedAt: now(),
		};
		const reply = await inbound.answer?.(report.mic);
		const receipt = await inboundReceipt(deps, inbound, plan.name, at, reply);
		try {
			const message = await store.transaction(async (tx) => {
				record.id = await tx.messages.createNew(record);
				await receipt.write(tx, record.id);
				if (account) await countReceivedMessage(tx, account, config, record, at);
				await recordEvent(
					tx,
					{
						kind: "message.received",
						accountId: record.accountId,
						tenantId: record.tenantId,
						environment: "live",
						data: messageEventData.received(record),
					},
					at,
				);
				if (inbound.mdnRequest?.mode === "async") {
					await tx.jobs.enqueue(
						{ kind: SEND_MDN_JOB, key: `mdn:${record.id}`, payload: { messageId: record.id }, runAt: at },
						at,
					);
				}
				// EPCIS (issue #7): an XML payload's events are indexed by a job of their own; nothing here waits for it.
				await enqueueEpcisIndex(tx, record, at);
				return record;
			});
			if (inbound.mdnRequest?.mode === "async") deps.wake();
			deps.telemetry.messageSettled(message);
			return { error: null, mic: report.mic, message, duplicate: false, ...(reply ? { reply } : {}) };
		} catch (error) {
			// A message with this Message-ID is stored already (a resend, or another request's
			// that won the race): answer as for a duplicate.
			await receipt.discard();
			if (!isConflictOn(error, "messages.")) throw error;
			await blobs.delete(blob.key).catch(() => {});
			const copy = await original();
			return copy ? duplicateOf(copy) : { error, mic: undefined, message: null, duplicate: false };
		}
	} catch (error) {
		if (stored !== null) await blobs.delete(stored).catch(() => {});
		const duplicate = await original().catch(() => null);
		if (duplicate) return duplicateOf(duplicate);
		deps.logger.warn({ err: error, tenantId: tenant.id, partnerId: partner.id, messageId }, "inbound message refused");
		deps.telemetry.inboundRefused("processing_error", isAs2Error(error) ? error.code : "INTERNAL_ERROR");
		return { error, mic: undefined, message: null, duplicate: false };
	} finally {
		// Not `await raw?.release()`: a body in memory would await undefined, a promise for nothing.
		if (raw) await raw.release();
	}
}

/** decisions.md: a duplicate is answered with the same disposition (processed) and no second event. */
function duplicateOf(message: MessageRecord): InboundOutcome {
	return { error: null, mic: message.mic ? parseMic(message.mic) : undefined, message, duplicate: true };
}
