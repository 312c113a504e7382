import type { As2Store, PartnerTraffic } from "@as2kit/core/store";
import type { PartnerMessageStats } from "../views/partner-views.ts";

/** The windows `GET /v1/partners/{id}/stats` offers, in UTC days. */
export const STATS_PERIODS = { "7d": 7, "30d": 30, "90d": 90 } as const;
export type StatsPeriod = keyof typeof STATS_PERIODS;
export const DEFAULT_STATS_PERIOD: StatsPeriod = "30d";

/** A partner's traffic over a period, as one tenant sees it (interface spec, GET /v1/partners/{id}/stats). */
export interface PartnerStats {
	period: StatsPeriod;
	/** Midnight UTC of the period's first day; the period runs to `periodEnd` (now), today included. */
	periodStart: Date;
	periodEnd: Date;
	sent: number;
	received: number;
	successRates: { outbound: number | null; inbound: number | null; overall: number | null };
	avgProcessingSeconds: { outbound: number | null; inbound: number | null };
	/** Every UTC day of the period, oldest first, zeros included. */
	days: { date: string; sent: number; received: number; failures: number }[];
}

const DAY_MS = 86_400_000;

/**
 * Success rates are percentages with one decimal, of finished messages only; null while none
 * has finished:
 * - outbound: delivered (or sent without an MDN requested) over those plus the failed ones;
 *   messages still queued, processing or awaiting their MDN do not count yet;
 * - inbound: received over all inbound messages (an inbound message that failed is stored
 *   as failed);
 * - overall: both together.
 */
export async function partnerStats(
	store: As2Store,
	tenantId: string,
	partnerId: string,
	now: Date,
	period: StatsPeriod = DEFAULT_STATS_PERIOD,
): Promise<PartnerStats> {
	const days = STATS_PERIODS[period];
	const periodStart = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS - (days - 1) * DAY_MS);
	// The port counts messages created strictly after `since`.
	const traffic = await store.messages.partnerTraffic(tenantId, partnerId, new Date(periodStart.getTime() - 1));
	const byDate = new Map(traffic.days.map((day) => [day.date, day]));
	return {
		period,
		periodStart,
		periodEnd: now,
		sent: traffic.sent,
		received: traffic.received,
		successRates: successRates(traffic),
		avgProcessingSeconds: {
			outbound: roundTo(traffic.avgOutboundSeconds, 3),
			inbound: roundTo(traffic.avgInboundSeconds, 3),
		},
		days: Array.from({ length: days }, (_, i) => {
			const date = new Date(periodStart.getTime() + i * DAY_MS).toISOString().slice(0, 10);
			const day = byDate.get(date);
			return { date, sent: day?.sent ?? 0, received: day?.received ?? 0, failures: day?.failures ?? 0 };
		}),
	};
}

/**
 * The summary in a partner's detail and configuration views: the default period's counts and
 * overall success rate, and the partner's latest message of all time.
 */
export async function partnerMessageStats(
	store: As2Store,
	tenantId: string,
	partnerId: string,
	now: Date,
): Promise<PartnerMessageStats> {
	const stats = await partnerStats(store, tenantId, partnerId, now);
	const latest = await store.messages.list(tenantId, { partnerId }, { page: 1, perPage: 1, countLimit: 1 });
	return {
		totalSent: stats.sent,
		totalReceived: stats.received,
		successRate: stats.successRates.overall,
		lastMessageAt: latest.items[0]?.createdAt ?? null,
	};
}

function successRates(t: PartnerTraffic): PartnerStats["successRates"] {
	const outboundFinished = t.outboundSucceeded + t.outboundFailed;
	const inboundSucceeded = t.received - t.inboundFailed;
	return {
		outbound: percent(t.outboundSucceeded, outboundFinished),
		inbound: percent(inboundSucceeded, t.received),
		overall: percent(t.outboundSucceeded + inboundSucceeded, outboundFinished + t.received),
	};
}

const percent = (part: number, whole: number): number | null => (whole === 0 ? null : roundTo((part / whole) * 100, 1));

function roundTo(value: number | null, decimals: number): number | null {
	if (value === null) return null;
	const factor = 10 ** decimals;
	return Math.round(value * factor) / factor;
}
