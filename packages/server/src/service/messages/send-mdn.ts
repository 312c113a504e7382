import { type Disposition, isAs2Error, type MdnRequest, parseMic } from "@as2kit/core";
import type { MessageRecord } from "@as2kit/core/store";
import { configReads } from "../config-cache/config-reads.ts";
import type { ServiceDeps } from "../deps.ts";
import { type JobHandler, RetryJob } from "../jobs/worker.ts";
import { effectivePartner } from "../partners/effective-partner.ts";
import { open } from "../secrets/sealed.ts";
import { postAs2 } from "../transport/post-as2.ts";
import { createTargetGuard } from "../transport/target-guard.ts";
import { checkTargetUrl } from "../transport/target-url.ts";
import { newTrace } from "../transport/transport-trace.ts";
import { captureAsyncMdnSent } from "./attempts.ts";
import { replyMdn } from "./inbound-mdn.ts";
import type { KeyMaterial } from "./key-material.ts";
import { messageIdDomain } from "./submit.ts";

interface NegativeMdnPayload {
	accountId: string;
	tenantId: string;
	partnerId: string;
	original: { messageId: string; from: string; to: string };
	mdnRequest: MdnRequest;
	disposition: Disposition;
	text: string;
}

/**
 * The `mdn.send` job: an async MDN POSTed to the partner's Receipt-Delivery-Option (RFC 4130
 * §7.3), signed when asked, retried on AS2_SEND_RETRY_DELAYS. The URL comes from the partner's
 * message, so it passes the target guard like any outbound target: no private or loopback
 * address unless AS2_ALLOW_PRIVATE_TARGETS=1 (an MDN must not become a way into our network),
 * and no `http://` unless AS2_ALLOW_HTTP=1.
 */
export function createSendMdnHandler(deps: ServiceDeps, keys: KeyMaterial): JobHandler {
	const { store, now, config, sealKey, logger } = deps;
	const domain = messageIdDomain(config.publicUrl);
	const guard = createTargetGuard({ allowPrivateTargets: config.allowPrivateTargets });
	const configs = configReads(deps.configCache, store);

	return async (job) => {
		const at = now();
		let message: MessageRecord | null = null;
		let context: NegativeMdnPayload;
		if (typeof job.payload.messageId === "string") {
			message = await store.messages.getById(job.payload.messageId);
			const request = message?.details.mdn_request as unknown as MdnRequest | undefined;
			if (!message || !request?.url) return;
			context = {
				accountId: message.accountId,
				tenantId: message.tenantId,
				partnerId: message.partnerId,
				original: { messageId: message.messageId, from: message.fromAs2Id, to: message.toAs2Id },
				mdnRequest: request,
				disposition: { type: "processed" },
				text: "",
			};
		} else {
			context = job.payload as unknown as NegativeMdnPayload;
		}
		const row = await configs.visiblePartner(context.tenantId, context.accountId, context.partnerId);
		if (!row || !context.mdnRequest.url) return;
		const partner = effectivePartner(row).record;
		const identity = await keys.signingIdentity(context.tenantId, at).catch(() => null);
		const mdn = await replyMdn({
			original: { ...context.original, mdnRequest: context.mdnRequest },
			mic: message?.mic ? parseMic(message.mic) : undefined,
			disposition: context.disposition,
			identity,
			...(context.text ? { text: context.text } : {}),
			at,
			domain,
		});
		const trace = newTrace();
		try {
			checkTargetUrl(context.mdnRequest.url, config, {
				field: "Receipt-Delivery-Option",
				credentialsHint: "the partner's HTTP auth settings apply",
			});
			const result = await postAs2({
				url: context.mdnRequest.url,
				guard,
				headers: mdn.headers,
				body: {
					size: mdn.body.byteLength,
					async *open() {
						yield mdn.body;
					},
				},
				idleTimeoutMs: partner.settings.connection.timeoutSeconds * 1000,
				totalTimeoutMs: config.httpTimeoutSeconds * 1000,
				tls: partner.settings.tls,
				auth: partner.settings.auth
					? {
							username: partner.settings.auth.username,
							password: open(sealKey, partner.settings.auth.passwordSealed, partner.id).toString(),
						}
					: null,
				maxResponseBytes: 64 * 1024,
				trace,
			});
			if (result.status < 200 || result.status > 299) throw new Error(`the partner answered HTTP ${result.status}`);
			if (message) await store.messages.update(message.id, { mdnStatus: "received", updatedAt: now() });
		} catch (error) {
			const delay = config.sendRetryDelays[job.attempts] ?? null;
			// A URL the deployment's rules refuse will not do better later.
			if (delay === null || (isAs2Error(error) && error.code === "INVALID_ENDPOINT_URL")) {
				logger.warn({ err: error, messageId: context.original.messageId }, "async MDN could not be delivered");
				if (message) await store.messages.update(message.id, { mdnStatus: "failed", updatedAt: now() });
				return;
			}
			throw new RetryJob(new Date(now().getTime() + delay * 1000), (error as Error).message);
		} finally {
			// Whatever the answer, once the request was written it is what the partner saw.
			if (message && trace.requestHead) {
				await captureAsyncMdnSent(deps, message, trace.requestHead, mdn.body).catch((error) =>
					logger.warn({ err: error, messageId: message?.id }, "the async MDN sent could not be captured"),
				);
			}
		}
	};
}
