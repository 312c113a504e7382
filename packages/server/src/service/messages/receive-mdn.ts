import { isMdnEntity, type MimeHeaders, parseMdn, toChunks } from "@as2kit/core";
import type { PartnerRecord, TenantRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { applyMdn } from "./apply-mdn.ts";
import { captureAsyncMdn } from "./attempts.ts";
import { createFailureHints } from "./failure-hints.ts";
import type { KeyMaterial } from "./key-material.ts";
import type { ReceiveResponse } from "./receive.ts";

/** An MDN larger than this is refused (they are a few kilobytes). */
const MAX_MDN_BYTES = 1024 * 1024;

/**
 * Whether a POST to /as2/receive (or /as2/mdn) is an async MDN rather than a message (RFC 4130
 * §7.4), as as2-core's `isMdnEntity` decides: it reads the body's MIME structure with the
 * declared boundary up to the first part's header block, never the whole body.
 */
export async function isMdnRequest(
	deps: ServiceDeps,
	headers: MimeHeaders,
	body: Uint8Array | { blobKey: string },
): Promise<boolean> {
	const type = headers.get("content-type");
	const encoding = headers.get("content-transfer-encoding");
	if (body instanceof Uint8Array) return isMdnEntity(type, toChunks(body), encoding);
	const stream = await deps.blobs.get(body.blobKey);
	if (!stream) return false;
	const reader = stream.getReader();
	try {
		return await isMdnEntity(type, chunksOf(reader), encoding);
	} finally {
		await reader.cancel().catch(() => {});
	}
}

async function* chunksOf(reader: ReadableStreamDefaultReader<Uint8Array>) {
	for (;;) {
		const { done, value } = await reader.read();
		if (done) return;
		yield value;
	}
}

/**
 * An async MDN for one of our outbound messages: verified with the partner's certificates and
 * matched by Original-Message-ID within the tenant and partner, then applied (delivered or
 * failed). 200 when applied, 404 when no such message awaits an MDN, 400 when unreadable or
 * rejected (apply-mdn.ts: it settles nothing, it is recorded on the message, which keeps
 * waiting for a valid MDN).
 */
export async function receiveAsyncMdn(
	deps: ServiceDeps,
	keys: KeyMaterial,
	context: {
		tenant: TenantRecord;
		partner: PartnerRecord;
		headers: MimeHeaders;
		body: Uint8Array | { blobKey: string };
	},
): Promise<ReceiveResponse> {
	const { store, blobs, now } = deps;
	const at = now();
	let body: Uint8Array | AsyncIterable<Uint8Array>;
	if (context.body instanceof Uint8Array) body = context.body;
	else {
		const stream = await blobs.get(context.body.blobKey);
		if (!stream) return reply(400, "the MDN could not be read");
		body = toChunks(stream);
	}
	let mdn: Awaited<ReturnType<typeof parseMdn>>;
	try {
		mdn = await parseMdn({
			headers: context.headers,
			body,
			partnerCertificates: await keys.verificationCertificates(context.partner.id),
			at,
			maxBytes: MAX_MDN_BYTES,
		});
	} catch (error) {
		deps.logger.warn({ err: error, partnerId: context.partner.id }, "unreadable async MDN");
		return reply(400, `the MDN could not be read: ${(error as Error).message}`);
	}
	// Our Message-IDs never hold control characters (RFC 5322 §3.6.4): such an MDN answers none
	// of our messages, on every store alike (PostgreSQL refuses a NUL in a lookup).
	// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters no Message-ID holds
	if (/[\0-\x1f\x7f]/.test(mdn.originalMessageId)) {
		return reply(404, `no message with that Original-Message-ID was sent to ${context.partner.as2Id}`);
	}
	const message = await store.messages.findByMessageId(context.tenant.id, mdn.originalMessageId, {
		direction: "outbound",
		partnerId: context.partner.id,
	});
	if (!message) return reply(404, `no message ${mdn.originalMessageId} was sent to ${context.partner.as2Id}`);
	await captureAsyncMdn(deps, message, context.headers.entries(), context.body);
	if (message.status !== "sent" && message.status !== "processing") {
		return reply(200, `message ${mdn.originalMessageId} was already settled (${message.status})`);
	}
	const { verdict } = await applyMdn(deps, message, mdn, {
		signedRequested: context.partner.settings.mdn.signed,
		at,
		via: "async",
		hint: (failure) => createFailureHints(deps, keys).afterMdn(message, context.partner, mdn, failure),
	});
	if (verdict.outcome === "rejected") {
		deps.logger.warn(
			{ messageId: message.id, partnerId: context.partner.id, reason: verdict.reason },
			"async MDN rejected; the message keeps waiting for a valid one",
		);
		// Not a 2xx: a partner whose genuine MDN we cannot verify yet (its certificate not
		// uploaded) sees the refusal, and a retry after the fix settles the message.
		return reply(400, `the MDN was not accepted: ${verdict.reason}`);
	}
	return reply(200, "MDN received");
}

function reply(status: number, message: string): ReceiveResponse {
	return {
		status,
		headers: [["Content-Type", "text/plain; charset=utf-8"]],
		body: new TextEncoder().encode(`${message}\n`),
	};
}
