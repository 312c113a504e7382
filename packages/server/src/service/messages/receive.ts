import { randomUUID } from "node:crypto";
import {
	As2Error,
	concatBytes,
	isAs2Error,
	type MdnRequest,
	type Mic,
	MimeHeaders,
	parseAs2Id,
	readMdnRequest,
	stripMessageId,
} from "@as2kit/core";
import type { PartnerRecord, TenantRecord } from "@as2kit/core/store";
import { putBytes } from "../blob-bytes.ts";
import { configReads } from "../config-cache/config-reads.ts";
import type { Logger, ServiceDeps } from "../deps.ts";
import { effectivePartner } from "../partners/effective-partner.ts";
import { type Plan, planOf, receiveLimits } from "../plans.ts";
import type { InboundRefusal } from "../telemetry.ts";
import { withFields } from "../with-fields.ts";
import { createInboundAdmission } from "./inbound-admission.ts";
import type { InboundConcurrency } from "./inbound-concurrency.ts";
import { dispositionFor, type MdnReply, replyMdn } from "./inbound-mdn.ts";
import type { KeyMaterial } from "./key-material.ts";
import { type InboundMessage, processInbound } from "./process-inbound.ts";
import { isMdnRequest, receiveAsyncMdn } from "./receive-mdn.ts";
import { RECEIVE_JOB } from "./send-job-kind.ts";
import { messageIdDomain } from "./submit.ts";

/** Bodies up to this size are read into memory; larger ones stream to the blob store first. */
const IN_MEMORY_BYTES = 1024 * 1024;
/** What a 503 for too much inbound work at once asks the sender to wait. */
const BUSY_RETRY_AFTER_SECONDS = 5;
/** Encoding and CMS overhead over the plan's payload limit that a message body may carry. */
const BODY_OVERHEAD = (payload: number) => Math.ceil(payload * 1.4) + 1024 * 1024;

export interface ReceiveRequest {
	headers: Iterable<[string, string]>;
	/** The request body: a Node request as it is, or a web stream. */
	body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null;
	/** Content-Length when the client sent one. */
	contentLength: number | null;
	/**
	 * Reads `body` whole, at most `max` bytes (null past them), more cheaply than iterating it:
	 * given by the HTTP layer for a Node request (service/transport/read-whole-body.ts); a body held in
	 * memory is read through it when present.
	 */
	readWhole?: (max: number) => Promise<Uint8Array | null>;
	clientIp: string;
	/**
	 * The request's logger (bound to its requestId): what the engine logs while answering goes
	 * there, so every log line of a request carries its id (README, LOG_LEVEL).
	 */
	log?: Logger;
}

export type ReceiveResponse = MdnReply | { status: number; headers: Array<[string, string]>; body: Uint8Array };

/**
 * `POST /as2/receive` (decisions.md, Messages): routed by AS2-To to a tenant and AS2-From to one
 * of its partners (own or inherited). An async MDN from a partner is matched to our message; an
 * AS2 message is processed at once when the sender waits for a sync MDN, or stored and
 * answered at once otherwise, its processing and async MDN following as jobs. Unknown routing
 * is a negative MDN where one can be returned, a 4xx otherwise. Limited per partner.
 */
export function createReceiver(deps: ServiceDeps, keys: KeyMaterial, inbound: InboundConcurrency) {
	const { store, blobs, now, config } = deps;
	const domain = messageIdDomain(config.publicUrl);
	const admission = createInboundAdmission(store);
	const configs = configReads(deps.configCache, store);

	async function route(
		headers: MimeHeaders,
	): Promise<{ tenant: TenantRecord | null; partner: PartnerRecord | null; to: string; from: string }> {
		const to = parseAs2Id(headers.get("as2-to"), "AS2-To");
		const from = parseAs2Id(headers.get("as2-from"), "AS2-From");
		const tenant = await configs.tenantByAs2Id(to);
		if (!tenant) return { tenant: null, partner: null, to, from };
		const row = await configs.visiblePartnerByAs2Id(tenant.id, tenant.accountId, from);
		const partner = row ? effectivePartner(row).record : null;
		return { tenant, partner: partner?.active ? partner : null, to, from };
	}

	/** The answer for a message we do not process: a negative MDN when the sender waits for one, else a 4xx. */
	async function refuse(
		error: As2Error,
		context: {
			headers: MimeHeaders;
			tenant: TenantRecord | null;
			from: string;
			to: string;
			mdnRequest: MdnRequest | undefined;
		},
	): Promise<ReceiveResponse> {
		const messageId = context.headers.get("message-id");
		if (context.mdnRequest?.mode === "sync" && messageId) {
			// A negative MDN is an HTTP 200: counted here, the 4xx answers by receive() below.
			deps.telemetry.inboundRefused(error.code === "UNKNOWN_TRADING_PARTNER" ? "unknown_partner" : "malformed");
			const identity = context.tenant ? await keys.signingIdentity(context.tenant.id, now()).catch(() => null) : null;
			return replyMdn({
				original: {
					messageId: stripMessageId(messageId),
					from: context.from,
					to: context.to,
					mdnRequest: context.mdnRequest,
				},
				mic: undefined,
				disposition: dispositionFor(error),
				identity,
				text: error.message,
				at: now(),
				domain,
			});
		}
		return text(error.status === 400 && error.code === "UNKNOWN_TRADING_PARTNER" ? 404 : error.status, error.message);
	}

	return async function receive(request: ReceiveRequest): Promise<ReceiveResponse> {
		const response = await answer(request);
		if (response.status >= 400) deps.telemetry.inboundRefused(refusalOf(response.status));
		return response;
	};

	async function answer(request: ReceiveRequest): Promise<ReceiveResponse> {
		const headers = new MimeHeaders(request.headers);
		let routed: Awaited<ReturnType<typeof route>>;
		let mdnRequest: MdnRequest | undefined;
		try {
			routed = await route(headers);
			mdnRequest = readMdnRequest(headers);
		} catch (error) {
			return text(400, isAs2Error(error) ? error.message : "malformed AS2 headers");
		}
		const { tenant, partner, to, from } = routed;
		const context = { headers, tenant, from, to, mdnRequest };
		const account = tenant ? await configs.account(tenant.accountId) : null;
		const plan = planOf(account?.plan ?? "free", config.enterpriseLimits);
		const limited = await admitPartner(tenant, partner, plan, from, request.clientIp);
		if (limited) return limited;
		if (!tenant) return refuse(new As2Error("UNKNOWN_TRADING_PARTNER", `no tenant has the AS2 id ${to}`), context);
		// Held from the first body byte to the answer: receiving and (for a sync MDN) processing.
		const release = inbound.tryEnter(tenant.id, plan.concurrent);
		if (!release) return busy();
		const maxBody = BODY_OVERHEAD(plan.maxPayloadBytes);
		if (request.contentLength !== null && request.contentLength > maxBody) {
			release();
			return text(413, `the message exceeds ${maxBody} bytes`);
		}
		let body: Uint8Array | { blobKey: string };
		try {
			body = await readBody(request, maxBody);
		} catch (error) {
			release();
			return text(isAs2Error(error) ? error.status : 400, isAs2Error(error) ? error.message : "cannot read the body");
		}
		const blobKey = body instanceof Uint8Array ? null : body.blobKey;
		let keepBlob = false;
		const logged = request.log ? withFields(deps, { logger: request.log }) : deps;
		try {
			if (await isMdnRequest(deps, headers, body)) {
				if (!partner) return text(404, `no partner with the AS2 id ${from}`);
				return await receiveAsyncMdn(logged, keys, { tenant, partner, headers, body });
			}
			if (!partner)
				return refuse(new As2Error("UNKNOWN_TRADING_PARTNER", `tenant ${to} has no active partner ${from}`), context);
			const rawId = headers.get("message-id");
			if (!rawId) return refuse(new As2Error("INVALID_AS2_HEADERS", "the message has no Message-ID"), context);
			const inbound: InboundMessage = {
				tenant,
				partner,
				headers,
				messageId: stripMessageId(rawId),
				mdnRequest,
				body,
				account,
			};
			if (mdnRequest?.mode !== "sync") {
				// The partner does not wait for an MDN: store, answer at once, process in a job.
				const key = blobKey ?? (await putBytes(blobs, rawKey(now()), [body as Uint8Array])).key;
				await store.transaction((tx) =>
					tx.jobs.enqueue(
						{
							kind: RECEIVE_JOB,
							payload: {
								accountId: tenant.accountId,
								tenantId: tenant.id,
								partnerId: partner.id,
								blobKey: key,
								headers: [...headers].map(([n, v]) => [n, v]),
							},
							runAt: now(),
						},
						now(),
					),
				);
				keepBlob = true;
				deps.wake();
				return text(200, "The AS2 message was received; its MDN follows asynchronously.");
			}
			const answer = async (mic: Mic | undefined, error: unknown) =>
				replyMdn({
					original: { messageId: inbound.messageId, from, to, mdnRequest },
					mic,
					disposition: dispositionFor(error),
					identity: await keys.signingIdentity(tenant.id, now()).catch(() => null),
					...(error ? { text: errorText(error) } : {}),
					at: now(),
					domain,
				});
			// A stored message's MDN is built (and kept as its receipt's response) before it is
			// stored; a duplicate's or a refusal's after.
			const outcome = await processInbound(
				logged,
				keys,
				withFields(inbound, { answer: (mic: Mic) => answer(mic, null) }),
			);
			return outcome.reply ?? (await answer(outcome.mic, outcome.error));
		} finally {
			release();
			if (blobKey && !keepBlob) await blobs.delete(blobKey).catch(() => {});
		}
	}

	async function readBody(request: ReceiveRequest, maxBody: number): Promise<Uint8Array | { blobKey: string }> {
		if (!request.body) return new Uint8Array(0);
		if (request.contentLength !== null && request.contentLength <= IN_MEMORY_BYTES) {
			const max = Math.min(maxBody, request.contentLength);
			const bytes = await (request.readWhole ? request.readWhole(max) : readAll(request.body, max));
			if (bytes === null) throw new As2Error("MESSAGE_TOO_LARGE", "the message is longer than its Content-Length");
			return bytes;
		}
		const blob = await blobs.put(rawKey(now()), request.body, { maxBytes: maxBody });
		return { blobKey: blob.key };
	}

	/**
	 * decisions.md: `/as2/receive` is limited per partner, never by a tenant's API traffic, at
	 * the tenant plan's receive limits (plans.ts); senders nobody knows, per client address, at
	 * the Free plan's.
	 */
	async function admitPartner(
		tenant: TenantRecord | null,
		partner: PartnerRecord | null,
		plan: Plan,
		from: string,
		clientIp: string,
	): Promise<ReceiveResponse | null> {
		const known = tenant && partner;
		const taken = await admission.admit({
			key: known ? `as2:${tenant.id}:${partner.id}` : `as2-unknown:${clientIp}`,
			...receiveLimits(known ? plan : planOf("free"), config),
			now: now(),
		});
		if (taken.allowed) return null;
		return {
			status: 429,
			headers: [
				["Content-Type", "text/plain; charset=utf-8"],
				["Retry-After", String(taken.retryAfterSeconds)],
			],
			body: new TextEncoder().encode(`too many messages from ${from}; retry after ${taken.retryAfterSeconds} s\n`),
		};
	}
}

/** Every chunk of `body` in one array, or null as soon as there are more than `max` bytes. */
async function readAll(
	body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
	max: number,
): Promise<Uint8Array | null> {
	const chunks: Uint8Array[] = [];
	let length = 0;
	for await (const chunk of body as AsyncIterable<Uint8Array>) {
		length += chunk.byteLength;
		if (length > max) return null;
		chunks.push(chunk);
	}
	return chunks.length === 1 ? chunks[0]! : concatBytes(chunks);
}

export function rawKey(at: Date): string {
	return `inbound/${at.toISOString().slice(0, 7)}/${randomUUID()}`;
}

/** Over the instance's or the tenant's bound of inbound work (inbound-concurrency.ts): AS2 senders retry a 503. */
function busy(): ReceiveResponse {
	return {
		status: 503,
		headers: [
			["Content-Type", "text/plain; charset=utf-8"],
			["Retry-After", String(BUSY_RETRY_AFTER_SECONDS)],
		],
		body: new TextEncoder().encode("too many inbound messages in progress; retry later\n"),
	};
}

const REFUSALS: Record<number, InboundRefusal> = {
	400: "malformed",
	404: "unknown_partner",
	413: "too_large",
	429: "rate_limited",
	503: "busy",
};

function refusalOf(status: number): InboundRefusal {
	return REFUSALS[status] ?? "other";
}

function text(status: number, message: string): ReceiveResponse {
	return {
		status,
		headers: [["Content-Type", "text/plain; charset=utf-8"]],
		body: new TextEncoder().encode(`${message}\n`),
	};
}

function errorText(error: unknown): string {
	return `The message could not be processed: ${error instanceof Error ? error.message : String(error)}`;
}
