import { As2Error } from "@as2kit/core";
import type { ServiceDeps } from "../deps.ts";
import { planOf } from "../plans.ts";
import { type Principal, requirePermission } from "../principal.ts";
import { effectivePartner } from "./effective-partner.ts";
import { type ProbeResult, probeEndpoint } from "./probe-endpoint.ts";
import { validatePartner } from "./validate-partner.ts";

export interface PartnerTestResult {
	success: boolean;
	testType: "ping" | "mdn" | "full";
	probe: ProbeResult;
	durationMs: number;
	testedAt: Date;
}

/**
 * `POST /v1/partners/{id}/validate` and `/test`. Tests count against the plan's partner tests
 * per hour (a token bucket per account), and the last test becomes the partner's
 * `connection_status`.
 */
export function createPartnerChecks(deps: ServiceDeps) {
	const { store, now, config } = deps;

	async function visiblePartner(principal: Principal, id: string) {
		const row = await store.partners.findVisible(principal.tenantId, principal.accountId, id);
		if (!row) throw new As2Error("PARTNER_NOT_FOUND", `partner ${id} not found`);
		return effectivePartner(row);
	}

	return {
		async validate(principal: Principal, id: string) {
			requirePermission(principal, "partners:read");
			const partner = await visiblePartner(principal, id);
			const [partnerCertificates, identities] = await Promise.all([
				store.certificates.listFor({ partnerId: id }),
				store.certificates.listFor({ identityOf: principal.tenantId }),
			]);
			return validatePartner(partner, { partner: partnerCertificates, identities }, now());
		},

		async ping(
			principal: Principal,
			id: string,
		): Promise<PartnerTestResult & { partner: ReturnType<typeof effectivePartner> }> {
			requirePermission(principal, "partners:read");
			const partner = await visiblePartner(principal, id);
			await takeTestAllowance(principal);
			const testedAt = now();
			const started = performance.now();
			const settings = partner.record.settings;
			const probe = await probeEndpoint(partner.record.url, {
				timeoutMs: Math.min(30_000, settings.connection.timeoutSeconds * 1000),
				caPem: settings.tls.caPem,
				pinnedSha256: settings.tls.pinnedSha256,
			});
			const success = probe.error === null;
			const warning = success && probe.steps.some((s) => s.status === "warning");
			await store.partners.update(partner.record.id, {
				connectionStatus: {
					lastTest: testedAt,
					lastTestResult: success ? (warning ? "warning" : "success") : "failure",
					responseTimeMs: probe.responseTimeMs,
				},
			});
			return {
				success,
				testType: "ping",
				probe,
				durationMs: Math.round(performance.now() - started),
				testedAt,
				partner,
			};
		},
	};

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
}
