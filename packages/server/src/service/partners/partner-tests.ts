import { As2Error } from "@as2kit/core";
import type { MessageRecord } from "@as2kit/core/store";
import type { ServiceDeps } from "../deps.ts";
import type { KeyMaterial } from "../messages/key-material.ts";
import { planOf } from "../plans.ts";
import { type Principal, requirePermission } from "../principal.ts";
import { createTargetGuard } from "../transport/target-guard.ts";
import { errorHintOf } from "../views/message-views.ts";
import { as2RoundTrip } from "./as2-round-trip.ts";
import type { CompatibilityHint } from "./compatibility-hints.ts";
import { type EffectivePartner, effectivePartner } from "./effective-partner.ts";
import { type ProbeResult, probeEndpoint } from "./probe-endpoint.ts";
import { validatePartner } from "./validate-partner.ts";

export type PartnerTestType = "ping" | "mdn" | "full";

export interface TimelineStep {
	step: string;
	status: "success" | "warning" | "failure";
	durationMs: number;
	details: Record<string, unknown>;
}

export interface PartnerTestResult {
	success: boolean;
	testType: PartnerTestType;
	partner: EffectivePartner;
	timeline: TimelineStep[];
	probe: ProbeResult | null;
	error: string | null;
	/** The setting that would likely fix the failure, when a known partner quirk explains it. */
	hint: CompatibilityHint | null;
	durationMs: number;
	testedAt: Date;
}

/** How many of a partner's latest failed messages validate reads for their hints. */
const RECENT_FAILURES_READ = 50;

/** A hint of the partner's recent failures, with how often and when it was last given. */
export interface RecentHint extends CompatibilityHint {
	messages: number;
	lastMessageId: string;
	lastFailedAt: Date | null;
}

/** The hints of failed messages (newest first), one per setting and value, most frequent first. */
function recentHints(failed: MessageRecord[]): RecentHint[] {
	const byFix = new Map<string, RecentHint>();
	for (const message of failed) {
		const hint = errorHintOf(message);
		if (!hint) continue;
		const key = `${hint.setting}=${String(hint.value)}`;
		const seen = byFix.get(key);
		if (seen) seen.messages += 1;
		else byFix.set(key, { ...hint, messages: 1, lastMessageId: message.id, lastFailedAt: message.failedAt });
	}
	return [...byFix.values()].sort((a, b) => b.messages - a.messages);
}

/**
 * `POST /v1/partners/{id}/validate` and `/test` (interface spec): `ping` (DNS, TCP, TLS), `mdn` (a
 * real AS2 test message and its verified MDN; simulated for test-environment keys, which never
 * transmit), `full` (both). Tests count against the plan's partner tests per hour (a token
 * bucket per account), and the last test becomes the partner's `connection_status`.
 */
export function createPartnerChecks(deps: ServiceDeps, keys: KeyMaterial) {
	const { store, now, config } = deps;
	const guard = createTargetGuard({ allowPrivateTargets: config.allowPrivateTargets });

	async function visiblePartner(principal: Principal, id: string): Promise<EffectivePartner> {
		const row = await store.partners.findVisible(principal.tenantId, principal.accountId, id);
		if (!row) throw new As2Error("PARTNER_NOT_FOUND", `partner ${id} not found`);
		return effectivePartner(row);
	}

	async function takeTestAllowance(principal: Principal): Promise<void> {
		const limit = planOf(principal.plan, config.enterpriseLimits).partnerTestsPerHour;
		if (limit === null) return;
		const taken = await store.rateLimits.take({
			key: `partner-tests:${principal.accountId}`,
			capacity: limit,
			refillPerSecond: limit / 3600,
			now: now(),
		});
		if (!taken.allowed) {
			throw new As2Error("rate_limit_exceeded", `the plan allows ${limit} partner tests per hour`, {
				details: { retry_after_seconds: taken.retryAfterSeconds },
			});
		}
	}

	async function mdnSteps(principal: Principal, partner: EffectivePartner): Promise<TimelineStep[]> {
		if (principal.environment === "test") {
			const failing = partner.record.as2Id.startsWith("FAIL");
			return [
				{ step: "build", status: "success", durationMs: 0, details: { simulated: true } },
				{
					step: "transmit",
					status: failing ? "failure" : "success",
					durationMs: 0,
					details: {
						simulated: true,
						...(failing ? { error: "simulated partner: unreachable (test environment)" } : {}),
					},
				},
				...(failing
					? []
					: [
							{
								step: "mdn",
								status: "success" as const,
								durationMs: 0,
								details: { simulated: true, disposition: "processed" },
							},
						]),
			];
		}
		const tenant = await store.tenants.get(principal.accountId, principal.tenantId);
		return as2RoundTrip(deps, keys, tenant!, partner.record, guard);
	}

	return {
		async validate(principal: Principal, id: string) {
			requirePermission(principal, "partners:read");
			const partner = await visiblePartner(principal, id);
			const [partnerCertificates, identities] = await Promise.all([
				store.certificates.listFor({ partnerId: id }),
				store.certificates.listFor({ identityOf: principal.tenantId }),
			]);
			const validation = await validatePartner(partner, { partner: partnerCertificates, identities }, now(), guard);
			const failures = await store.messages.list(
				principal.tenantId,
				{ partnerId: id, direction: "outbound", status: "failed", environment: principal.environment },
				{ page: 1, perPage: RECENT_FAILURES_READ },
			);
			return { ...validation, hints: recentHints(failures.items) };
		},

		async test(principal: Principal, id: string, testType: PartnerTestType): Promise<PartnerTestResult> {
			requirePermission(principal, "partners:read");
			const partner = await visiblePartner(principal, id);
			await takeTestAllowance(principal);
			const testedAt = now();
			const started = performance.now();
			const settings = partner.record.settings;
			const timeline: TimelineStep[] = [];
			let probe: ProbeResult | null = null;
			if (testType !== "mdn") {
				probe = await probeEndpoint(partner.record.url, {
					timeoutMs: Math.min(30_000, settings.connection.timeoutSeconds * 1000),
					caPem: settings.tls.caPem,
					pinnedSha256: settings.tls.pinnedSha256,
					guard,
				});
				timeline.push(...probe.steps);
			}
			if (testType !== "ping" && (probe === null || probe.error === null))
				timeline.push(...(await mdnSteps(principal, partner)));
			const failed = timeline.find((s) => s.status === "failure");
			const warning = timeline.some((s) => s.status === "warning");
			const error = probe?.error ?? (failed ? String(failed.details.error ?? `${failed.step} failed`) : null);
			const durationMs = Math.round(performance.now() - started);
			await store.partners.update(partner.record.id, {
				connectionStatus: {
					lastTest: testedAt,
					lastTestResult: failed ? "failure" : warning ? "warning" : "success",
					responseTimeMs: probe?.responseTimeMs ?? durationMs,
				},
			});
			const hint = (failed?.details.hint as CompatibilityHint | undefined) ?? null;
			return { success: !failed, testType, partner, timeline, probe, error, hint, durationMs, testedAt };
		},
	};
}
