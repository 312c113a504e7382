import {
	type As2Store,
	type AttemptOutcome,
	type MessageAttemptRecord,
	type MessageRecord,
	type PlanName,
	together,
	type WireCapture,
} from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import type { JobContext } from "../jobs/worker.ts";
import { newTrace, type TransportTrace } from "../transport/transport-trace.ts";
import {
	captureBytes,
	capturedBlobs,
	captureReceived,
	captureReceivedExchange,
	openWireSink,
	storeBody,
	teeInto,
	type WireSink,
	wireKey,
} from "./attempt-wire.ts";
import { wireExpiry, wireExpiryFor } from "./attempts-retention.ts";
import type { MdnReply } from "./inbound-mdn.ts";
import type { AlsoInTransaction } from "./message-transitions.ts";

export interface AttemptResult {
	outcome: AttemptOutcome;
	httpStatus?: number;
	errorCode?: string;
	errorMessage?: string;
	/** The answer's body (sync MDN or error page), captured with the trace's response head. */
	responseBody?: Uint8Array;
}

/**
 * One POST of an outbound message, recorded (issue #18, attempts): the transport fills in
 * `trace`, the body is captured as it is sent (when `config.wireCapture` is on), and
 * `finish` stores the answer and gives the attempt's row to write in the transaction of the
 * message's outcome, so that a message's state and its attempts never disagree.
 * Takes the message as it was before this attempt was counted, and the attempt's number: no
 * copy of the record per message (issue #20).
 */
export function startOutboundAttempt(
	deps: ServiceDeps,
	message: Pick<MessageRecord, "id" | "tenantId" | "accountId">,
	/** This attempt's number (the message's `attempts` once it is counted). */
	number: number,
	url: string,
	at: Date,
) {
	const { blobs, now, config } = deps;
	const started = performance.now();
	const trace: TransportTrace = newTrace();
	// Opened when the body is first read: an attempt that never sends (lease lost) leaves no open blob.
	let sink: WireSink | null = null;
	/** The request sent and the answer, in one blob when the request was held (attempt-wire.ts). */
	const storeExchange = async (result: AttemptResult) => {
		const answerHead = config.wireCapture ? trace.responseHead : undefined;
		const answer = answerHead ? result.responseBody : undefined;
		const answerKey = wireKey(at, message.id, number, "response");
		const stored = sink
			? await sink.endWith(answer, answerKey)
			: { sent: null, answer: answer ? await storeBody(blobs, answerKey, answer) : null };
		return {
			request: stored.sent && trace.requestHead ? { head: trace.requestHead, ...stored.sent } : null,
			response: stored.answer && answerHead ? { head: answerHead, ...stored.answer } : null,
		};
	};
	return {
		trace,
		/** The build phase ends: the message is signed/encrypted as it streams, this is the set-up. */
		built() {
			trace.phases.buildMs = Math.round(performance.now() - started);
		},
		capture(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
			if (!config.wireCapture) return body;
			sink = openWireSink(blobs, wireKey(at, message.id, number, "request"));
			return teeInto(body, sink);
		},
		/**
		 * `capture` for a body in memory, sent in one write (post-as2.ts `whole`): called as it is
		 * written. Under the sink's held bound the chunk is held at once, as `teeInto` holds it
		 * before passing it on.
		 */
		captureWhole(body: Uint8Array): Uint8Array {
			if (!config.wireCapture) return body;
			sink = openWireSink(blobs, wireKey(at, message.id, number, "request"));
			void sink.write(body);
			sink.close();
			return body;
		},
		async finish(result: AttemptResult): Promise<AlsoInTransaction> {
			const { request, response } = await storeExchange(result);
			const record: MessageAttemptRecord = {
				tenantId: message.tenantId,
				messageId: message.id,
				number,
				direction: "outbound",
				startedAt: at,
				finishedAt: now(),
				url,
				httpStatus: result.httpStatus ?? null,
				bytesSent: trace.bytesSent ?? null,
				bytesReceived: trace.bytesReceived ?? null,
				outcome: result.outcome,
				errorCode: result.errorCode ?? null,
				errorMessage: result.errorMessage?.slice(0, 1000) ?? null,
				tlsVersion: trace.tlsVersion ?? null,
				peerCertificateSha256: trace.peerCertificateSha256 ?? null,
				phases: trace.phases,
				request,
				response,
				mdn: null,
				// Read here, before the outcome's transaction: the attempt is one of its last calls, which
				// write at once (AlsoInTransaction); a read of the account there (the cache's entry expired)
				// would put the insert behind its answer.
				wireExpiresAt: request || response ? await wireExpiry(deps, deps.store, message.accountId, at) : null,
			};
			return Object.assign(
				async (tx: As2Store) => {
					await tx.messageAttempts.create(record);
				},
				{ asStep: { attempt: record } },
			);
		},
	};
}

export type OutboundAttempt = ReturnType<typeof startOutboundAttempt>;

/** Both writes, in this order, in the transaction they are given. */
export function alsoBoth(first: AlsoInTransaction, second?: AlsoInTransaction): AlsoInTransaction {
	// Independent writes: sent together (together.ts); a move makes its parts with its events.
	const parts = second ? [first, second] : [first];
	// The attempt's insert and the job's end write at once and decide nothing: COMMIT may go with them.
	const asStep = parts.every((part) => part.asStep)
		? Object.assign({}, ...parts.map((part) => part.asStep))
		: undefined;
	return Object.assign((tx: As2Store) => together(parts.map((part) => part(tx))), {
		parts,
		writesAtOnce: true,
		...(asStep ? { asStep } : {}),
	});
}

/**
 * The job's end in the transaction of the message's outcome (`JobContext.completeIn`), and as a
 * step's write when the worker gives it as data (`JobContext.completion`).
 */
export function endingJob(
	completeIn: JobContext["completeIn"],
	completion: JobContext["completion"],
): AlsoInTransaction {
	const end = (tx: As2Store) => completeIn(tx);
	if (!completion) return end;
	return Object.assign(end, {
		asStep: {
			completeJob: { id: completion.jobId, workerId: completion.workerId },
			completed: completion.ended,
		},
	});
}

/**
 * Keeps an async MDN as it was received (its header fields and body) with the attempt it
 * answers, the message's latest (RFC 4130 §7.4: the MDN comes on a request of its own). Best
 * effort: an MDN that cannot be captured is still applied.
 */
export async function captureAsyncMdn(
	deps: ServiceDeps,
	message: MessageRecord,
	headers: Iterable<[string, string]>,
	body: Uint8Array | { blobKey: string },
): Promise<void> {
	if (!deps.config.wireCapture || message.attempts < 1) return;
	const key = wireKey(deps.now(), message.id, message.attempts, "mdn");
	const mdn = await captureReceived(deps.blobs, key, headers, body);
	if (!mdn) return;
	const earlier = await deps.store.messageAttempts.get(message.tenantId, message.id, message.attempts);
	const wireExpiresAt = await wireExpiry(deps, deps.store, message.accountId, deps.now());
	const updated = await deps.store.messageAttempts.update(message.id, message.attempts, { mdn, wireExpiresAt });
	// No attempt to keep it with (its outcome not recorded yet): the capture would never expire.
	// A later MDN for the attempt (after a rejected one) replaces the earlier capture.
	const unkept = updated ? earlier?.mdn : mdn;
	if (unkept) await deps.blobs.delete(unkept.blobKey).catch(() => {});
}

/**
 * The receipt of an inbound message as its first attempt (issue #18: receipts are the inbound
 * attempts), with the request as it came (its header fields and body, copied from the raw
 * body before that is released) and, for a sync MDN, the response we answer with: its status
 * line and header fields as we set them (the HTTP layer adds Date and the framing) and its
 * body. Answers the write for the transaction that stores the message.
 */
export async function inboundReceipt(
	deps: ServiceDeps,
	inbound: {
		tenant: { id: string; accountId: string };
		headers: Iterable<[string, string]>;
		body: Uint8Array | { blobKey: string };
	},
	/** The account's plan, read already by the caller (its captures are kept by it). */
	plan: PlanName,
	at: Date,
	reply?: MdnReply,
): Promise<{ write(tx: As2Store, messageId: string): Promise<void>; discard(): Promise<void> }> {
	const { request, response } = await captureReceipt(deps, inbound, at, reply);
	const wireExpiresAt = request || response ? wireExpiryFor(plan, at) : null;
	const received = request?.bytes ?? (inbound.body instanceof Uint8Array ? inbound.body.byteLength : null);
	return {
		write: (tx, messageId) =>
			tx.messageAttempts.create({
				tenantId: inbound.tenant.id,
				messageId,
				number: 1,
				direction: "inbound",
				startedAt: at,
				finishedAt: deps.now(),
				url: null,
				httpStatus: null,
				bytesSent: null,
				bytesReceived: received,
				outcome: "succeeded",
				errorCode: null,
				errorMessage: null,
				tlsVersion: null,
				peerCertificateSha256: null,
				phases: {},
				request,
				response,
				mdn: null,
				wireExpiresAt,
			}),
		/** The message was not stored (another request stored it first): nothing keeps the captures. */
		discard: async () => {
			for (const key of capturedBlobs([request, response])) await deps.blobs.delete(key).catch(() => {});
		},
	};
}

/** The request as it came and, for a sync MDN, our answer: nothing when capture is off. */
async function captureReceipt(
	deps: ServiceDeps,
	inbound: { headers: Iterable<[string, string]>; body: Uint8Array | { blobKey: string } },
	at: Date,
	reply?: MdnReply,
): Promise<{ request: WireCapture | null; response: WireCapture | null }> {
	if (!deps.config.wireCapture) return { request: null, response: null };
	const requestKey = wireKey(at, "inbound", 1, "request");
	if (!reply)
		return { request: await captureReceived(deps.blobs, requestKey, inbound.headers, inbound.body), response: null };
	const answerKey = wireKey(at, "inbound", 1, "response");
	return captureReceivedExchange(deps.blobs, { exchange: requestKey, answer: answerKey }, inbound, {
		head: replyHead(reply),
		body: reply.body,
	});
}

/** Our answer as we set it: the HTTP layer adds Date and the framing. */
function replyHead(reply: MdnReply): string {
	let head = `HTTP/1.1 ${reply.status} ${reply.status === 200 ? "OK" : ""}`.trimEnd();
	head += "\r\n";
	// Appended field by field: no copy of the fields, no array of lines to join (issue #20).
	for (const [name, value] of reply.headers) head += `${name}: ${value}\r\n`;
	return `${head}\r\n`;
}

/**
 * The async MDN we POSTed for an inbound message (RFC 4130 §7.3), kept as its receipt's `mdn`:
 * the request head as written (Authorization redacted) and the MDN body. Each delivery attempt
 * of the MDN replaces the previous capture, so what is kept is the last one sent. Best effort,
 * like every capture: the MDN is delivered whether or not it could be kept.
 */
export async function captureAsyncMdnSent(
	deps: ServiceDeps,
	message: MessageRecord,
	requestHead: string,
	body: Uint8Array,
): Promise<void> {
	if (!deps.config.wireCapture) return;
	const mdn = await captureBytes(deps.blobs, wireKey(deps.now(), message.id, 1, "mdn"), requestHead, body);
	if (!mdn) return;
	const earlier = await deps.store.messageAttempts.get(message.tenantId, message.id, 1);
	const wireExpiresAt = earlier?.wireExpiresAt ?? (await wireExpiry(deps, deps.store, message.accountId, deps.now()));
	const updated = earlier ? await deps.store.messageAttempts.update(message.id, 1, { mdn, wireExpiresAt }) : null;
	// No receipt to keep it with: the capture would never expire.
	const unkept = updated ? earlier?.mdn : mdn;
	if (unkept) await deps.blobs.delete(unkept.blobKey).catch(() => {});
}
