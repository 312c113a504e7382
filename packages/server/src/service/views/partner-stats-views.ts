import * as v from "valibot";
import type { EffectivePartner } from "../partners/effective-partner.ts";
import type { PartnerStats } from "../partners/message-stats.ts";
import { formatInstant } from "./instant.ts";
import { instantSchema } from "./schema-types.ts";

const rate = (what: string) =>
	v.pipe(
		v.nullable(v.number()),
		v.description(`percent with one decimal: ${what}; null while no such message has finished`),
	);
const seconds = (what: string) =>
	v.pipe(v.nullable(v.number()), v.description(`mean seconds ${what}; null without such messages`));

export const partnerStatsSchema = v.object({
	partner_id: v.string(),
	partner_name: v.string(),
	period: v.pipe(v.picklist(["7d", "30d", "90d"]), v.description("the last 7, 30 or 90 UTC days, today included")),
	period_start: v.pipe(instantSchema, v.description("midnight UTC of the period's first day")),
	period_end: v.pipe(instantSchema, v.description("now")),
	messages: v.object({
		sent: v.pipe(v.number(), v.description("outbound messages created in the period, whatever their status")),
		received: v.pipe(v.number(), v.description("inbound messages created in the period")),
		total: v.number(),
	}),
	success_rates: v.object({
		outbound: rate(
			"delivered (or sent, when no MDN was requested) out of those and the failed ones; messages still queued, processing or awaiting an MDN are left out",
		),
		inbound: rate("received out of all inbound messages (failed ones included)"),
		overall: rate("both directions together"),
	}),
	avg_processing_times: v.object({
		outbound_seconds: seconds("from creation to delivery (MDN received), of delivered outbound messages"),
		inbound_seconds: seconds("from receipt to the end of processing, of inbound messages"),
	}),
	recent_activity: v.pipe(
		v.array(
			v.object({
				date: v.pipe(v.string(), v.description("UTC day, YYYY-MM-DD")),
				sent: v.number(),
				received: v.number(),
				failures: v.pipe(v.number(), v.description("messages of that day, either direction, that failed")),
			}),
		),
		v.description("every UTC day of the period, oldest first, days without traffic included"),
	),
});

/** `GET /v1/partners/{id}/stats` (interface spec, Partners). */
export function partnerStatsView(
	partner: EffectivePartner,
	stats: PartnerStats,
): v.InferOutput<typeof partnerStatsSchema> {
	return {
		partner_id: partner.record.id,
		partner_name: partner.record.name,
		period: stats.period,
		period_start: formatInstant(stats.periodStart),
		period_end: formatInstant(stats.periodEnd),
		messages: { sent: stats.sent, received: stats.received, total: stats.sent + stats.received },
		success_rates: stats.successRates,
		avg_processing_times: {
			outbound_seconds: stats.avgProcessingSeconds.outbound,
			inbound_seconds: stats.avgProcessingSeconds.inbound,
		},
		recent_activity: stats.days,
	};
}
