import { createMessageId, formatMic, matchMdn, parseMdn, stripMessageId } from "@as2kit/core";
import type { MessageRecord, PartnerRecord, TenantRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import { buildOutbound } from "../messages/build-outbound.ts";
import { createFailureHints } from "../messages/failure-hints.ts";
import type { KeyMaterial } from "../messages/key-material.ts";
import { judgeMdn } from "../messages/mdn-verdict.ts";
import { messageIdDomain } from "../messages/submit.ts";
import { open } from "../secrets/sealed.ts";
import { postAs2 } from "../transport/post-as2.ts";
import type { TargetGuard } from "../transport/target-guard.ts";
import { effectiveCompatibility } from "./compatibility-profiles.ts";

export interface RoundTripStep {
	step: "build" | "transmit" | "mdn";
	status: "success" | "warning" | "failure";
	durationMs: number;
	details: Record<string, unknown>;
}

/**
 * A real AS2 test message to the partner (POST /v1/partners/{id}/test `mdn`): built with the
 * partner's settings, asking for a sync MDN whatever the partner's usual mode (a test cannot
 * wait a day for an async one), and the MDN verified — signature and MIC. Nothing is stored as
 * a message.
 */
export async function as2RoundTrip(
	deps: ServiceDeps,
	keys: KeyMaterial,
	tenant: TenantRecord,
	partner: PartnerRecord,
	guard: TargetGuard,
): Promise<RoundTripStep[]> {
	const { blobs, now, config, sealKey } = deps;
	const at = now();
	const steps: RoundTripStep[] = [];
	const text = new TextEncoder().encode(
		`as2kit connectivity test from ${tenant.as2Id} to ${partner.as2Id} at ${at.toISOString()}\r\n`,
	);
	const probe: MessageRecord = {
		id: "test",
		accountId: tenant.accountId,
		tenantId: tenant.id,
		environment: "live",
		direction: "outbound",
		messageId: stripMessageId(createMessageId(messageIdDomain(config.publicUrl))),
		partnerId: partner.id,
		partnerName: partner.name,
		partnerAs2Id: partner.as2Id,
		partnerUrl: partner.url,
		status: "processing",
		fromAs2Id: tenant.as2Id,
		toAs2Id: partner.as2Id,
		subject: "as2kit connectivity test",
		contentType: "text/plain",
		filename: "as2kit-test.txt",
		bytes: text.byteLength,
		compressed: partner.compress,
		encrypted: partner.encrypt,
		signed: partner.sign,
		mdnMode: "sync",
		mdnStatus: "pending",
		mdnData: null,
		rejectedMdns: [],
		mic: null,
		priority: "normal",
		headers: {},
		payloadKey: null,
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
		details: {},
		createdAt: at,
		updatedAt: at,
	};
	const payload = {
		size: text.byteLength,
		async *open() {
			yield text;
		},
	};
	const hints = createFailureHints(deps, keys);
	let t = performance.now();
	let built: Awaited<ReturnType<typeof buildOutbound>>;
	try {
		built = await buildOutbound(probe, partner, {
			keys,
			blobs,
			receiptUrl: null,
			domain: messageIdDomain(config.publicUrl),
			at,
			payload,
		});
		steps.push({
			step: "build",
			status: "success",
			durationMs: ms(t),
			details: {
				message_id: built.messageId,
				signed: built.signed,
				encrypted: built.encrypted,
				compressed: built.compressed,
			},
		});
	} catch (error) {
		steps.push({ step: "build", status: "failure", durationMs: ms(t), details: { error: messageOf(error) } });
		return steps;
	}
	t = performance.now();
	let result: Awaited<ReturnType<typeof postAs2>>;
	try {
		result = await postAs2({
			url: partner.url,
			guard,
			headers: built.headers,
			body: built.body,
			chunked: effectiveCompatibility(partner.settings.compatibility).chunked,
			idleTimeoutMs: partner.settings.connection.timeoutSeconds * 1000,
			totalTimeoutMs: Math.min(60, config.httpTimeoutSeconds) * 1000,
			tls: partner.settings.tls,
			auth: partner.settings.auth
				? {
						username: partner.settings.auth.username,
						password: open(sealKey, partner.settings.auth.passwordSealed, partner.id).toString(),
					}
				: null,
		});
		const ok = result.status >= 200 && result.status < 300;
		const answer = ok ? "" : new TextDecoder().decode(result.body.subarray(0, 500));
		const hint = ok ? null : hints.afterHttpRefusal(partner, result.status, answer);
		steps.push({
			step: "transmit",
			status: ok ? "success" : "failure",
			durationMs: ms(t),
			details: { http_status: result.status, ...(ok ? {} : { body: answer }), ...(hint ? { hint } : {}) },
		});
		if (!ok) return steps;
	} catch (error) {
		steps.push({ step: "transmit", status: "failure", durationMs: ms(t), details: { error: messageOf(error) } });
		return steps;
	}
	t = performance.now();
	try {
		const mdn = await parseMdn({
			headers: result.headers,
			body: result.body,
			partnerCertificates: await keys.verificationCertificates(partner.id),
			at: now(),
		});
		const mic = await built.mic();
		const match = matchMdn(mdn, { messageId: built.messageId, mic });
		// The verdict a real send would get from this MDN, so a test passes only where sends would.
		const sent = { ...probe, mic: formatMic(mic) };
		const verdict = judgeMdn(sent, mdn, { signedRequested: partner.settings.mdn.signed });
		const hint = verdict.outcome === "failed" ? await hints.afterMdn(sent, partner, mdn, verdict, payload) : null;
		const details = {
			disposition: mdn.disposition.raw,
			signed: mdn.signed,
			signature_valid: mdn.signatureValid ?? null,
			mic_matches: match.micMatches,
			expected_mic: formatMic(mic),
			received_mic: mdn.mic ? formatMic(mdn.mic) : null,
			...(verdict.outcome === "rejected" ? { rejected: verdict.reason } : {}),
			...(verdict.outcome === "failed" ? { error_code: verdict.code, error_message: verdict.message } : {}),
			...(hint ? { hint } : {}),
			...(match.messageIdMatches ? {} : { error_message: "the MDN names another Original-Message-ID" }),
		};
		const status = match.messageIdMatches && verdict.outcome === "delivered" ? "success" : "failure";
		steps.push({ step: "mdn", status, durationMs: ms(t), details });
	} catch (error) {
		steps.push({ step: "mdn", status: "failure", durationMs: ms(t), details: { error: messageOf(error) } });
	}
	return steps;
}

const ms = (from: number) => Math.round(performance.now() - from);
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
