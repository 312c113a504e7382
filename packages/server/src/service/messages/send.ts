import { As2Error, bufferedBytes, formatMic, isAs2Error, type PackResult, parseMdn } from "@as2kit/core";
import type { JobRecord, MessageRecord } from "@as2kit/core/store";
import { configReads } from "../config-cache/config-reads.ts";
import type { ServiceDeps } from "../deps.ts";
import type { JobHandler } from "../jobs/worker.ts";
import { effectivePartner } from "../partners/effective-partner.ts";
import { open } from "../secrets/sealed.ts";
import { postAs2 } from "../transport/post-as2.ts";
import { createTargetGuard } from "../transport/target-guard.ts";
import { withFields } from "../with-fields.ts";
import { applyMdn } from "./apply-mdn.ts";
import { reportAttempt } from "./attempt-report.ts";
import { alsoBoth, endingJob, type OutboundAttempt, startOutboundAttempt } from "./attempts.ts";
import { buildOutbound, partnerSwitches } from "./build-outbound.ts";
import { createFailureHints } from "./failure-hints.ts";
import { heldPayloads } from "./held-payloads.ts";
import type { KeyMaterial } from "./key-material.ts";
import { failMessage, NO_EVENTS, transitionMessage } from "./message-transitions.ts";
import { nextAttemptDelaySeconds } from "./retry-policy.ts";
import { simulateSend } from "./simulate.ts";
import { bytesBody, messageIdDomain } from "./submit.ts";

/** The event of a move to `sent`: one function for every message, not a closure each. */
const SENT_EVENT = () => ["sent" as const];

/** HTTP statuses worth another try (RFC 9110: the server may do better later). */
const TRANSIENT_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * The `message.send` job (interface spec, States and transitions): queued → processing →
 * sent → delivered | failed. Every attempt keeps the AS2 Message-ID; connection failures,
 * timeouts and 5xx answers are retried per the retry schedule, a 4xx or a negative MDN are
 * final. The job holds a lease: a worker that dies leaves it to another after the lease.
 */
export function createSendHandler(deps: ServiceDeps, keys: KeyMaterial): JobHandler {
	const { store, blobs, now, config, sealKey, logger } = deps;
	const receiptBase = config.publicUrl ?? config.listenerUrl;
	const receiptUrl = receiptBase ? `${receiptBase.replace(/\/$/, "")}/as2/receive` : null;
	const guard = createTargetGuard({ allowPrivateTargets: config.allowPrivateTargets });
	const hints = createFailureHints(deps, keys);
	const configs = configReads(deps.configCache, store);
	const domain = messageIdDomain(config.publicUrl);
	const held = heldPayloads(deps);
	/** The payload its submission held in memory, for the first run of its job (held-payloads.ts). */
	const payloadHeldFor = (message: MessageRecord) => {
		const bytes = message.payloadKey ? held.take(message.payloadKey, message.bytes) : null;
		return bytes ? { payload: { size: bytes.byteLength, open: () => bytesBody(bytes) } } : {};
	};

	return async (job, { completeIn, completion, rescheduleIn, confirmLease, leaseLost, handedOff }) => {
		// The job ends in its outcome's transaction, or step (MessageSteps.settle).
		const jobEnd = endingJob(completeIn, completion);
		// A job starts from the record that committed with it when its submission handed it off, or
		// from the one its claim read (issue #20: one SQLite transaction or PostgreSQL round trip
		// less per message); it reads the store only when its lease ran out before it started.
		const found = handedOffMessage(job, handedOff) ?? (await store.messages.getById(String(job.payload.messageId)));
		if (!found || (found.status !== "queued" && found.status !== "processing")) return;
		if (found.environment === "test") return simulateSend(deps, found);
		const at = now();
		const starting = {
			status: "processing" as const,
			attempts: found.attempts + 1,
			lastAttemptAt: at,
			details: withoutNextAttempt(found),
		};
		const row = await configs.visiblePartner(found.tenantId, found.accountId, found.partnerId);
		if (!row) {
			const message = await transitionMessage(deps, found, ["queued", "processing"], starting, NO_EVENTS, at);
			if (!message) return;
			await failMessage(
				deps,
				message,
				{ code: "PARTNER_NOT_FOUND", message: "the partner was deleted" },
				at,
				{},
				jobEnd,
			);
			return;
		}
		const partner = effectivePartner(row).record;
		const settings = partner.settings;
		const attempt = startOutboundAttempt(deps, found, starting.attempts, partner.url, at);
		// Built before the move to `processing` (the build reads nothing the move changes): a small
		// body is built whole, so its MIC is known now and is recorded in that move's commit, before
		// the POST starts (issue #20: one commit less per message). A failed build is handled, as
		// any failure of the attempt, once the attempt is counted.
		const built = await buildOutbound(found, partner, {
			keys,
			blobs,
			receiptUrl,
			domain,
			at,
			...payloadHeldFor(found),
		}).catch((error: unknown) => ({ failure: error }));
		const recordedMics =
			!("failure" in built) && bufferedBytes(built.body) ? await attemptMics(starting.details, built) : null;
		const message = await transitionMessage(
			deps,
			found,
			["queued", "processing"],
			recordedMics ? withFields(starting, recordedMics) : starting,
			NO_EVENTS,
			at,
		);
		if (!message) return;
		// The answer of a transient refusal, for the attempt's record after the throw.
		let refusal: { status: number; body: Uint8Array } | null = null;
		try {
			if ("failure" in built) throw built.failure;
			attempt.built();
			// Another worker may have claimed the job if this one stalled past its lease: that worker
			// sends it (with the same Message-ID), this one must not send it at the same time.
			if (!(await confirmLease())) return;
			const result = await postAs2({
				signal: leaseLost,
				url: partner.url,
				guard,
				trace: attempt.trace,
				headers: built.headers,
				body: {
					size: built.body.size,
					// A buffered body (its MICs on record already) is written in one `end`.
					whole: recordedMics ? wholeBody(built, attempt) : undefined,
					async *open() {
						const body = attempt.capture(built.body.open());
						if (recordedMics) {
							yield* body;
							return;
						}
						// A streamed body's MIC is known once it has been read through, and must be on
						// record before the partner holds the whole message: its MDN (sync, or async on
						// another instance) may come back at once, and after a crash it must still match
						// this attempt. So the last chunk waits until this attempt's MIC is stored.
						let held: Uint8Array | null = null;
						for await (const chunk of body) {
							if (held) yield held;
							held = chunk;
						}
						const recorded = await attemptMics(message.details, built);
						await store.messages.update(message.id, recorded);
						message.mic = recorded.mic;
						message.details = recorded.details;
						if (held) yield held;
					},
				},
				chunked: partnerSwitches(partner).chunked,
				idleTimeoutMs: settings.connection.timeoutSeconds * 1000,
				totalTimeoutMs: Math.max(settings.connection.timeoutSeconds, config.httpTimeoutSeconds) * 1000,
				tls: settings.tls,
				auth: settings.auth
					? {
							username: settings.auth.username,
							password: open(sealKey, settings.auth.passwordSealed, partner.id).toString(),
						}
					: null,
			});
			const done = now();
			if (result.status < 200 || result.status > 299) {
				const answer = new TextDecoder().decode(result.body.subarray(0, 500));
				const error = new As2Error(
					TRANSIENT_STATUS.has(result.status) ? "PARTNER_UNREACHABLE" : "PARTNER_REJECTED",
					`the partner answered HTTP ${result.status}`,
					{ details: { http_status: result.status, body: answer } },
				);
				if (TRANSIENT_STATUS.has(result.status)) {
					refusal = result;
					throw error;
				}
				reportAttempt(deps, message, {
					outcome: "rejected",
					errorCode: error.code,
					httpStatus: result.status,
					durationMs: result.timeMs,
				});
				await failMessage(
					deps,
					message,
					{ code: error.code, message: error.message, hint: hints.afterHttpRefusal(partner, result.status, answer) },
					done,
					{ transmissionTimeMs: result.timeMs },
					alsoBoth(
						await attempt.finish({
							outcome: "failed",
							...answered(result),
							errorCode: error.code,
							errorMessage: error.message,
						}),
						jobEnd,
					),
				);
				return;
			}
			const sent = { sentAt: done, transmissionTimeMs: result.timeMs };
			const succeeded = await attempt.finish({ outcome: "succeeded", ...answered(result) });
			reportAttempt(deps, message, {
				outcome: "sent",
				errorCode: null,
				httpStatus: result.status,
				durationMs: result.timeMs,
			});
			if (message.mdnMode === "none") {
				await transitionMessage(
					deps,
					message,
					["processing"],
					{ status: "sent", mdnStatus: "none", ...sent },
					SENT_EVENT,
					done,
					alsoBoth(succeeded, jobEnd),
				);
				return;
			}
			if (message.mdnMode === "async") {
				const deadline = new Date(done.getTime() + config.mdnTimeoutSeconds * 1000);
				await transitionMessage(
					deps,
					message,
					["processing"],
					{ status: "sent", mdnStatus: "pending", mdnDeadline: deadline, ...sent },
					SENT_EVENT,
					done,
					alsoBoth(succeeded, jobEnd),
				);
				return;
			}
			let mdn: Awaited<ReturnType<typeof parseMdn>>;
			try {
				mdn = await parseMdn({
					headers: result.headers,
					body: result.body,
					partnerCertificates: await keys.verificationCertificates(partner.id),
					at: done,
				});
			} catch (error) {
				await failMessage(
					deps,
					message,
					{ code: "INVALID_MDN", message: `the sync MDN cannot be read: ${(error as Error).message}` },
					done,
					{
						mdnStatus: "failed",
						...sent,
					},
					alsoBoth(succeeded, jobEnd),
				);
				return;
			}
			await applyMdn(deps, message, mdn, {
				signedRequested: settings.mdn.signed,
				at: done,
				via: "sync",
				patch: { transmissionTimeMs: result.timeMs },
				hint: (failure) => hints.afterMdn(message, partner, mdn, failure),
				// The job ends with the outcome, in its transaction.
				also: alsoBoth(succeeded, jobEnd),
			});
		} catch (error) {
			// The job is another worker's now: its outcome is that worker's to record.
			if (leaseLost.aborted) return;
			const failed = now();
			const transient =
				isAs2Error(error) && (error.details?.transient === true || error.code === "PARTNER_UNREACHABLE");
			const code = isAs2Error(error) ? error.code : "INTERNAL_ERROR";
			const text = error instanceof Error ? error.message : String(error);
			if (!isAs2Error(error)) logger.error({ err: error, messageId: message.id }, "sending failed unexpectedly");
			const delay = transient ? nextAttemptDelaySeconds(message.attempts, partner, config.sendRetryDelays) : null;
			reportAttempt(deps, message, {
				outcome: delay === null ? "failed" : "retry",
				errorCode: code,
				httpStatus: isAs2Error(error) ? httpStatusOf(error.details) : null,
				durationMs: failed.getTime() - at.getTime(),
			});
			const outcome = { errorCode: code, errorMessage: text, ...(refusal ? answered(refusal) : {}) };
			if (delay === null) {
				const record = await attempt.finish({ outcome: "failed", ...outcome });
				await failMessage(deps, message, { code, message: text }, failed, {}, alsoBoth(record, jobEnd));
				return;
			}
			const next = new Date(failed.getTime() + delay * 1000);
			const record = await attempt.finish({ outcome: "retrying", ...outcome });
			await store.transaction(async (tx) => {
				await tx.messages.update(message.id, {
					errorCode: code,
					errorMessage: text.slice(0, 1000),
					details: { ...message.details, next_attempt_at: next.toISOString() },
					updatedAt: failed,
				});
				await record(tx);
				await rescheduleIn(tx, next, `${code}: ${text}`);
			});
		}
	};
}

/** The body of a buffered message as one write, captured as it is written (`PostBody.whole`). */
function wholeBody(built: PackResult, attempt: OutboundAttempt): (() => Uint8Array) | undefined {
	const bytes = bufferedBytes(built.body);
	return bytes && (() => attempt.captureWhole(bytes));
}

/**
 * The MIC of this attempt's body, added to the details' `attempt_mics`: every MIC the partner's
 * MDN may answer this attempt with, ours and the same bytes' MIC in the algorithms partners
 * fall back to (issue #17, defect 6).
 */
async function attemptMics(details: MessageRecord["details"], built: PackResult) {
	const mic = formatMic(await built.mic());
	const alternatives = (await built.alternativeMics()).map(formatMic);
	const mics = [...((details.attempt_mics as string[] | undefined) ?? []), mic, ...alternatives];
	return { mic, details: withFields(details, { attempt_mics: mics }) };
}

/**
 * The message its submission wrote with this job and handed to it (hand-off.ts), or its claim
 * read with it (worker.ts): current, as the job is leased to this worker since that commit. Its
 * status is still checked, as a read's would be, and every move from it is conditional on the
 * status it had (message-transitions.ts).
 */
function handedOffMessage(job: JobRecord, handedOff: unknown): MessageRecord | null {
	const message = handedOff as MessageRecord | undefined;
	return message?.direction === "outbound" && message.id === job.payload.messageId ? message : null;
}

/** The details without the time of a retry: this attempt is it. */
function withoutNextAttempt(message: MessageRecord): MessageRecord["details"] {
	const { next_attempt_at: _next, ...details } = message.details;
	return details;
}

/** The partner's HTTP status when the failure was its answer (an As2Error's `http_status`). */
function httpStatusOf(details: Record<string, unknown> | undefined): number | null {
	return typeof details?.http_status === "number" ? details.http_status : null;
}

/** The HTTP status and body of a partner's answer, for the attempt's record. */
function answered(result: { status: number; body: Uint8Array }) {
	return { httpStatus: result.status, responseBody: result.body };
}
