import type { As2Store, AttemptOutcome, MessageAttemptRecord, MessageRecord, WireCapture } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { newTrace, type TransportTrace } from "../transport/transport-trace.ts";
import { captureBytes, openWireSink, teeInto, wireKey } from "./attempt-wire.ts";
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
 */
export function startOutboundAttempt(deps: ServiceDeps, message: MessageRecord, url: string, at: Date) {
	const { blobs, now, config } = deps;
	const number = message.attempts;
	const started = performance.now();
	const trace: TransportTrace = newTrace();
	const sink = config.wireCapture ? openWireSink(blobs, wireKey(at, message.id, number, "request")) : null;
	return {
		trace,
		/** The build phase ends: the message is signed/encrypted as it streams, this is the set-up. */
		built() {
			trace.phases.buildMs = Math.round(performance.now() - started);
		},
		capture: (body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> => (sink ? teeInto(body, sink) : body),
		async finish(result: AttemptResult): Promise<AlsoInTransaction> {
			const sent = await sink?.end();
			const response =
				sink && result.responseBody && trace.responseHead
					? await captureBytes(
							blobs,
							wireKey(at, message.id, number, "response"),
							trace.responseHead,
							result.responseBody,
						)
					: null;
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
				request: sent && trace.requestHead ? { head: trace.requestHead, blobKey: sent.key, bytes: sent.bytes } : null,
				response,
				mdn: null,
			};
			return (tx: As2Store) => tx.messageAttempts.create(record);
		},
	};
}

export type OutboundAttempt = ReturnType<typeof startOutboundAttempt>;

/** Both writes, in this order, in the transaction they are given. */
export function alsoBoth(first: AlsoInTransaction, second?: AlsoInTransaction): AlsoInTransaction {
	return async (tx) => {
		await first(tx);
		await second?.(tx);
	};
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
	const head = `${[...headers].map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`;
	const key = wireKey(deps.now(), message.id, message.attempts, "mdn");
	let mdn: WireCapture | null = null;
	if (body instanceof Uint8Array) mdn = await captureBytes(deps.blobs, key, head, body);
	else {
		const stream = await deps.blobs.get(body.blobKey);
		const blob = stream ? await deps.blobs.put(key, stream).catch(() => null) : null;
		mdn = blob ? { head, blobKey: blob.key, bytes: blob.bytes } : null;
	}
	if (mdn) await deps.store.messageAttempts.update(message.id, message.attempts, { mdn });
}
