import { randomUUID } from "node:crypto";
import { As2Error, createMessageId, stripMessageId } from "@as2kit/core";
import {
	type As2Store,
	type BlobInfo,
	commitWith,
	type MessagePriority,
	type MessageRecord,
	messageSteps,
	type NewJob,
	together,
} from "@as2kit/core/store";
import { allowanceRefusal, checkMessageAllowance, countLiveSend, liveSendCounters } from "../billing/usage.ts";
import { putBytes } from "../blob-bytes.ts";
import { configReads } from "../config-cache/config-reads.ts";
import type { ServiceDeps } from "../deps.ts";
import { enqueueEpcisIndex, epcisIndexJob } from "../epcis/index-job.ts";
import { eventFanOut, type NewEvent, recordEvent, stepEvent } from "../events.ts";
import { prepareHandOff } from "../jobs/hand-off.ts";
import { effectivePartner } from "../partners/effective-partner.ts";
import { planOf } from "../plans.ts";
import { type Principal, requirePermission } from "../principal.ts";
import { FieldChecks, fieldError } from "../validation-error.ts";
import { messageEventData } from "../views/message-views.ts";
import { withFields } from "../with-fields.ts";
import { checkContentType } from "./content-types.ts";
import { checkMessageHeaders } from "./custom-headers.ts";
import { heldPayloads } from "./held-payloads.ts";
import type { KeyMaterial } from "./key-material.ts";
import { SEND_JOB } from "./send-job-kind.ts";

export interface SubmitInput {
	partnerId: string;
	contentType: string;
	/** The payload already streamed into the blob store (multipart), or its bytes (JSON). */
	payload: { blob: BlobInfo } | { bytes: Uint8Array };
	subject?: string | undefined;
	filename?: string | undefined;
	headers?: Record<string, string> | undefined;
	priority?: MessagePriority | undefined;
	sign?: boolean | undefined;
	encrypt?: boolean | undefined;
	compress?: boolean | undefined;
	mdnMode?: "sync" | "async" | "none" | undefined;
	scheduledAt?: Date | undefined;
	/** The message this one resends (message-actions.ts): linked both ways in the same transaction. */
	resentFrom?: string | undefined;
}

const PRIORITY: Record<MessagePriority, number> = { high: 20, normal: 10, low: 0 };

/** Where payloads go: a fresh key per upload, so a retried request never overwrites another's. */
export function newPayloadKey(at: Date): string {
	return `payloads/${at.toISOString().slice(0, 7)}/${randomUUID()}`;
}

/**
 * `POST /v1/messages` (interface spec, Messages): checks the partner (404 PARTNER_NOT_FOUND,
 * 400 PARTNER_INACTIVE), the certificates the message will need (SIGNING_FAILED,
 * ENCRYPTION_FAILED, CERTIFICATE_EXPIRED), the plan's size and monthly allowance, then writes
 * the message (queued), `message.queued` and the send job in one transaction.
 */
export function createSubmit(deps: ServiceDeps, keys: KeyMaterial) {
	const { store, blobs, now, config } = deps;
	const configs = configReads(deps.configCache, store);
	const domain = messageIdDomain(config.publicUrl);
	const heldForSend = heldPayloads(deps);

	return async function submit(principal: Principal, input: SubmitInput): Promise<MessageRecord> {
		let blob: BlobInfo | null = "blob" in input.payload ? input.payload.blob : null;
		const held = "bytes" in input.payload ? input.payload.bytes : null;
		const sendJob = prepareHandOff(deps);
		try {
			// Inside the try: a multipart payload is already stored, and a key without
			// messages:write (spec, Authentication 9: 403 insufficient_scope) must not leave it behind.
			requirePermission(principal, "messages:write");
			const at = now();
			const row = await configs.visiblePartner(principal.tenantId, principal.accountId, input.partnerId);
			if (!row)
				throw new As2Error("PARTNER_NOT_FOUND", `partner ${input.partnerId} not found`, {
					details: { partner_id: input.partnerId },
				});
			const partner = effectivePartner(row).record;
			if (!partner.active)
				throw new As2Error("PARTNER_INACTIVE", `partner ${partner.id} is deactivated`, {
					details: { partner_id: partner.id },
				});
			const contentType = checkContentType(input.contentType);
			// Every field at fault in one 422 (issue #16, defect 9).
			const fields = new FieldChecks();
			const headers = fields.check(() => checkMessageHeaders(input));
			if (input.scheduledAt && input.scheduledAt <= at) fields.add(fieldError("scheduled_at", "must be in the future"));
			fields.throwIfAny();
			const sign = input.sign ?? partner.sign;
			const encrypt = input.encrypt ?? partner.encrypt;
			const compress = input.compress ?? partner.compress;
			const mdnMode = input.mdnMode ?? partner.mdnMode;
			if (sign) await keys.signingIdentity(principal.tenantId, at);
			if (encrypt) await keys.encryptionCertificate(partner.id, at);
			const account = { id: principal.accountId, plan: principal.plan };
			if (principal.environment === "live") await checkMessageAllowance(store, account, config, at);
			if (!blob) {
				const bytes = held!;
				const max = planOf(principal.plan, config.enterpriseLimits).maxPayloadBytes;
				if (bytes.byteLength > max) {
					throw new As2Error("PAYLOAD_TOO_LARGE", `the payload exceeds the plan's ${max} bytes`, {
						details: { max_bytes: max, bytes: bytes.byteLength },
					});
				}
				blob = await putBytes(blobs, newPayloadKey(at), [bytes]);
			}
			const stored = blob;
			const newRecord = (fromAs2Id: string): MessageRecord => ({
				// Taken as it is written (MessageStore.createNew).
				id: "",
				accountId: principal.accountId,
				tenantId: principal.tenantId,
				environment: principal.environment,
				direction: "outbound",
				messageId: stripMessageId(createMessageId(domain)),
				partnerId: partner.id,
				partnerName: partner.name,
				partnerAs2Id: partner.as2Id,
				partnerUrl: partner.url,
				status: "queued",
				fromAs2Id,
				toAs2Id: partner.as2Id,
				subject: input.subject ?? null,
				contentType,
				filename: input.filename ?? null,
				bytes: stored.bytes,
				compressed: compress,
				encrypted: encrypt,
				signed: sign,
				mdnMode,
				mdnStatus: mdnMode === "none" ? "none" : "pending",
				mdnData: null,
				rejectedMdns: [],
				mic: null,
				priority: input.priority ?? "normal",
				headers: headers!,
				payloadKey: stored.key,
				scheduledAt: input.scheduledAt ?? null,
				attempts: 0,
				lastAttemptAt: null,
				sentAt: null,
				deliveredAt: null,
				failedAt: null,
				mdnDeadline: null,
				errorCode: null,
				errorMessage: null,
				transmissionTimeMs: null,
				details: {
					payload_sha256: stored.sha256,
					...(input.resentFrom ? { resent_from: input.resentFrom } : {}),
				},
				createdAt: at,
				updatedAt: at,
			});
			// The message, its state, `message.queued` and its jobs in one step where the store has
			// steps (MessageSteps.submit: on PostgreSQL one statement, issue #20). Not when a write
			// decides on an answer: the count against a plan's allowance refuses past it, a resend's
			// link reads the original before it writes; those are awaited, and COMMIT follows. On a
			// store without steps (SQLite, where a statement costs no round trip) the same calls in
			// the transaction as before: made of `stepsByCalls`, the POST's p99 at 300/s read higher
			// in 7 of 10 pairs, at the same CPU (docs/performance-storage.md, stop 37).
			const decides =
				input.resentFrom !== undefined ||
				(principal.environment === "live" &&
					planOf(account.plan, config.enterpriseLimits).monthlyLiveMessages !== null);
			const message =
				decides || !store.messageSteps
					? await store.transaction(async (transaction) => {
							const tx = sendJob.watch(transaction);
							// Read here, not before: in the transaction it costs no SQLite transaction of its own (issue #20).
							const tenant = await configReads(deps.configCache, tx).tenant(principal.accountId, principal.tenantId);
							const record = newRecord(tenant!.as2Id);
							record.id = await tx.messages.createNew(record);
							// A deciding write is awaited before COMMIT; otherwise COMMIT goes with the calls.
							const last = (calls: readonly (Promise<unknown> | undefined)[]) =>
								decides ? together(calls) : commitWith(tx, calls);
							await last([
								input.resentFrom ? linkResend(tx, input.resentFrom, record.id, at) : undefined,
								record.environment === "live" ? countLiveSend(tx, account, config, record.bytes, at) : undefined,
								recordEvent(tx, queuedEvent(record), at),
								sendJob.enqueue(tx, sendJobOf(record, at), at, record),
								// EPCIS (issue #7): an XML payload's events are indexed by a job of their own; nothing here waits for it.
								enqueueEpcisIndex(tx, record, at),
							]);
							return record;
						})
					: await submitStep(newRecord((await configs.tenant(principal.accountId, principal.tenantId))!.as2Id));
			/** The step, with the send job handed to this process's worker when it has a free slot (hand-off.ts). */
			async function submitStep(record: MessageRecord): Promise<MessageRecord> {
				const lease = sendJob.lease(sendJobOf(record, at), at);
				const indexed = epcisIndexJob(record, at) !== null;
				const written = await messageSteps(store).submit({
					message: record,
					usage: record.environment === "live" ? liveSendCounters(account, record.bytes, at) : undefined,
					withId: (id) => {
						const named = withFields(record, { id });
						const index = epcisIndexJob(named, at);
						return {
							events: [stepEvent(queuedEvent(named), at)],
							jobs: [{ ...sendJobOf(named, at), lease }, ...(index ? [index] : [])],
						};
					},
					fanOut: eventFanOut(at),
				});
				record.id = written.id;
				// The job's first read, handed to it when this process's worker runs it (send.ts).
				sendJob.wrote(written.job, record, written.fanOut || indexed);
				return record;
			}
			// Bytes the request carried are now the committed blob's: its send job needs not read them back.
			if (held && !input.scheduledAt) heldForSend.hold(stored.key, held);
			sendJob.committed();
			return message;
		} catch (error) {
			sendJob.abandoned();
			if (blob) await blobs.delete(blob.key).catch(() => {});
			throw await allowanceRefusal(store, error);
		}
	};
}

/** `message.queued` of a message just written. */
function queuedEvent(record: MessageRecord): NewEvent {
	return {
		kind: "message.queued",
		accountId: record.accountId,
		tenantId: record.tenantId,
		environment: record.environment,
		data: messageEventData.queued(record),
	};
}

/** The message's send job: one per message (its key), due when the message is scheduled. */
function sendJobOf(record: MessageRecord, at: Date): NewJob {
	return {
		kind: SEND_JOB,
		key: `send:${record.id}`,
		payload: { messageId: record.id },
		priority: PRIORITY[record.priority],
		runAt: record.scheduledAt ?? at,
	};
}

/** The original names its resends, oldest first (`resent_as`). */
async function linkResend(tx: As2Store, originalId: string, resendId: string, at: Date): Promise<void> {
	const original = await tx.messages.getById(originalId);
	if (!original) return;
	const resentAs = Array.isArray(original.details.resent_as) ? original.details.resent_as : [];
	await tx.messages.update(originalId, {
		details: { ...original.details, resent_as: [...resentAs, resendId] },
		updatedAt: at,
	});
}

/** The right-hand side of our Message-IDs: the public host, so partners see where messages come from. */
export function messageIdDomain(publicUrl: string | null): string {
	if (!publicUrl) return "as2kit.local";
	try {
		return new URL(publicUrl).hostname || "as2kit.local";
	} catch {
		return "as2kit.local";
	}
}

/** A one-chunk stream of bytes already in memory. */
/**
 * Bytes in memory as a body for `BlobStore.put`: one chunk from a generator, cheaper than a
 * ReadableStream (each one costs microseconds to set up on Node 20).
 */
export async function* bytesBody(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
	if (bytes.byteLength > 0) yield bytes;
}
