import type { JobKindDepth, MessageRecord } from "@as2kit/core/store";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { ServiceDeps } from "../service/deps.ts";
import type { AttemptOutcome, InboundRefusal, Telemetry } from "../service/telemetry.ts";

/** From a sync MDN's sub-second answer to an async one hours later (AS2_MDN_TIMEOUT_SECONDS). */
const MDN_WAIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600];
const TRANSMISSION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** A first attempt within seconds; retries follow AS2_WEBHOOK_RETRY_DELAYS up to a day. */
const WEBHOOK_LAG_BUCKETS = [0.1, 0.5, 1, 5, 30, 60, 300, 1800, 3600, 6 * 3600, 24 * 3600];

/**
 * The engine's numbers (service/telemetry.ts) as Prometheus metrics, in the registry `/metrics`
 * serves. Labels stay bounded: directions, statuses, outcomes, error codes of the registry,
 * HTTP statuses and job kinds; never message ids, partners or payload data.
 */
export class ServiceMetrics implements Telemetry {
	private readonly messages: Counter<"direction" | "status" | "environment">;
	private readonly attempts: Counter<"outcome" | "error_code" | "http_status">;
	private readonly transmission: Histogram<"outcome">;
	private readonly mdnWait: Histogram<"via">;
	private readonly refusals: Counter<"reason" | "error_code">;
	private readonly webhooks: Counter<"outcome">;
	private readonly webhookLag: Histogram<"outcome">;
	private readonly epcis: Counter<"outcome">;

	constructor(registry: Registry) {
		const registers = [registry];
		this.messages = new Counter({
			name: "as2kit_messages_total",
			help: "Messages that reached a final status: delivered, failed, received, or sent when no MDN was asked for; cancelled for one stopped by POST /v1/messages/{id}/cancel (failed with CANCELLED in the API); environment test is the simulated partner",
			labelNames: ["direction", "status", "environment"],
			registers,
		});
		this.attempts = new Counter({
			name: "as2kit_transmission_attempts_total",
			help: "Outbound transmission attempts by outcome (sent, rejected, retry, failed), error code and partner HTTP status",
			labelNames: ["outcome", "error_code", "http_status"],
			registers,
		});
		this.transmission = new Histogram({
			name: "as2kit_transmission_duration_seconds",
			help: "Time of one outbound transmission attempt, by outcome",
			labelNames: ["outcome"],
			buckets: TRANSMISSION_BUCKETS,
			registers,
		});
		this.mdnWait = new Histogram({
			name: "as2kit_mdn_wait_seconds",
			help: "From sending a message to the partner MDN that settled it, by sync or async MDN",
			labelNames: ["via"],
			buckets: MDN_WAIT_BUCKETS,
			registers,
		});
		this.refusals = new Counter({
			name: "as2kit_inbound_refusals_total",
			help: "Inbound AS2 requests not processed, by reason, and error code for processing errors",
			labelNames: ["reason", "error_code"],
			registers,
		});
		this.webhooks = new Counter({
			name: "as2kit_webhook_deliveries_total",
			help: "Webhook delivery attempts by outcome: succeeded, retry (another attempt is scheduled) or failed",
			labelNames: ["outcome"],
			registers,
		});
		this.webhookLag = new Histogram({
			name: "as2kit_webhook_delivery_lag_seconds",
			help: "From a webhook event to the end of a delivery attempt, by outcome",
			labelNames: ["outcome"],
			buckets: WEBHOOK_LAG_BUCKETS,
			registers,
		});
		this.epcis = new Counter({
			name: "as2kit_epcis_validations_total",
			help: "EPCIS documents validated, by outcome (valid, invalid)",
			labelNames: ["outcome"],
			registers,
		});
	}

	messageSettled(message: MessageRecord): void {
		// A cancel is `failed` with CANCELLED in the API (interface spec), but an operator's own act,
		// not a failure: apart, so an alert on failed messages does not page for it.
		const status = message.errorCode === "CANCELLED" ? "cancelled" : message.status;
		this.messages.inc({ direction: message.direction, status, environment: message.environment });
	}

	transmissionAttempt(attempt: {
		outcome: AttemptOutcome;
		errorCode: string | null;
		httpStatus: number | null;
		durationMs: number;
	}): void {
		this.attempts.inc({
			outcome: attempt.outcome,
			error_code: attempt.errorCode ?? "",
			http_status: attempt.httpStatus === null ? "" : String(attempt.httpStatus),
		});
		this.transmission.observe({ outcome: attempt.outcome }, attempt.durationMs / 1000);
	}

	mdnReceived(via: "sync" | "async", waitSeconds: number): void {
		this.mdnWait.observe({ via }, waitSeconds);
	}

	inboundRefused(reason: InboundRefusal, errorCode?: string): void {
		this.refusals.inc({ reason, error_code: errorCode ?? "" });
	}

	webhookDelivery(outcome: "succeeded" | "retry" | "failed", lagSeconds: number): void {
		this.webhooks.inc({ outcome });
		this.webhookLag.observe({ outcome }, lagSeconds);
	}

	epcisValidation(outcome: "valid" | "invalid"): void {
		this.epcis.inc({ outcome });
	}
}

const DAY_SECONDS = 86_400;

/**
 * Gauges read from the store at each scrape: the job queue per kind, and days until the
 * soonest certificate expiry per owner (a tenant, or an account's master partners). Owner
 * labels are the operator's own tenants and accounts, bounded by them. A store that fails
 * leaves the gauges empty for that scrape (logged) rather than failing `/metrics`.
 */
export function registerStoreGauges(registry: Registry, deps: Pick<ServiceDeps, "store" | "now" | "logger">): void {
	if (registry.getSingleMetric("as2kit_jobs")) return;
	const { store, now, logger } = deps;
	const registers = [registry];
	// A scrape collects every metric at once (prom-client's Registry.metrics): both queue gauges
	// share one read of the store per scrape.
	let reading: Promise<{ at: Date; depth: JobKindDepth[] }> | null = null;
	const readDepth = () => {
		reading ??= (async () => {
			const at = now();
			const depth = await store.jobs.depth(at).catch((error: unknown) => {
				logger.warn({ err: error }, "metrics: cannot read the job queue");
				return [];
			});
			return { at, depth };
		})().finally(() => {
			reading = null;
		});
		return reading;
	};
	new Gauge({
		name: "as2kit_jobs",
		help: "Jobs not completed, per job kind and state (due, scheduled, running)",
		labelNames: ["kind", "state"],
		registers,
		async collect() {
			const { depth } = await readDepth();
			this.reset();
			for (const kind of depth) {
				for (const state of ["due", "scheduled", "running"] as const) this.set({ kind: kind.kind, state }, kind[state]);
			}
		},
	});
	new Gauge({
		name: "as2kit_job_oldest_due_age_seconds",
		help: "Age of the oldest due job not yet picked up by a worker, per job kind (0 when none is due)",
		labelNames: ["kind"],
		registers,
		async collect() {
			const { at, depth } = await readDepth();
			this.reset();
			for (const kind of depth) {
				const age = kind.oldestDueAt ? Math.max(0, (at.getTime() - kind.oldestDueAt.getTime()) / 1000) : 0;
				this.set({ kind: kind.kind }, age);
			}
		},
	});
	new Gauge({
		name: "as2kit_storage_bytes",
		help: "Bytes an account keeps, per kind: message payloads (payload) and wire captures within retention (wire); measured every 15 minutes",
		labelNames: ["account_id", "kind"],
		registers,
		async collect() {
			const measures = await store.usage.listStorage().catch((error: unknown) => {
				logger.warn({ err: error }, "metrics: cannot read the storage measure");
				return [];
			});
			this.reset();
			for (const { accountId, metric, value } of measures) {
				this.set({ account_id: accountId, kind: metric.replace(/_bytes$/, "") }, value);
			}
		},
	});
	new Gauge({
		name: "as2kit_certificate_expiry_days",
		help: "Days until the soonest expiry among active certificates, per tenant (owner=tenant) or account master partners (owner=master_partners); negative when expired",
		labelNames: ["account_id", "tenant_id", "owner"],
		registers,
		async collect() {
			const at = now().getTime();
			const expiries = await store.certificates.soonestExpiries().catch((error: unknown) => {
				logger.warn({ err: error }, "metrics: cannot read certificate expiries");
				return [];
			});
			this.reset();
			for (const expiry of expiries) {
				this.set(
					{
						account_id: expiry.accountId,
						tenant_id: expiry.tenantId ?? "",
						owner: expiry.tenantId ? "tenant" : "master_partners",
					},
					(expiry.expiresAt.getTime() - at) / 1000 / DAY_SECONDS,
				);
			}
		},
	});
}
