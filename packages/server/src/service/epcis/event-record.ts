import { type EpcisEvent, normalizeCbv } from "@as2kit/core";
import type { EpcisEventRecord, EpcisEventValue, EpcisValueKind, Json } from "@as2kit/core/store";

const DATE_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * An xsd:dateTime as an instant, to the millisecond (finer digits are cut). Without a zone
 * (EPCIS 1.2 allows it) the time is taken as UTC, unless `requireZone`. null when unreadable.
 */
export function parseDateTime(text: string, options: { requireZone?: boolean } = {}): Date | null {
	const m = DATE_TIME.exec(text.trim());
	if (!m || (options.requireZone && !m[3])) return null;
	const fraction = (m[2] ?? ".0").slice(0, 4).padEnd(4, "0");
	const instant = new Date(`${m[1]}${fraction}${m[3] ?? "Z"}`);
	return Number.isNaN(instant.getTime()) ? null : instant;
}

/**
 * An event read from a message's payload as the store indexes it: the EQ_ fields as columns,
 * every identifier MATCH_ and EQ_bizTransaction/source/destination look up as one value row,
 * vocabulary in canonical CBV form. null for an event without a readable eventTime, which no
 * time range or order could place.
 */
export function toEventRecord(
	event: EpcisEvent,
	at: { tenantId: string; sourceMessageId: string; eventIndex: number; recordTime: Date },
): EpcisEventRecord | null {
	const eventTime = event.eventTime === undefined ? null : parseDateTime(event.eventTime);
	if (!eventTime) return null;
	const values: EpcisEventValue[] = [];
	const seen = new Set<string>();
	const add = (kind: EpcisValueKind, value: string | undefined, type = "") => {
		const v = value?.trim();
		const key = `${kind}\u0000${type}\u0000${v}`;
		if (!v || seen.has(key)) return;
		seen.add(key);
		values.push({ kind, type, value: v });
	};
	for (const epc of event.epcList ?? []) add("epc", epc);
	for (const epc of event.childEPCs ?? []) add("epc", epc);
	add("parentID", event.parentID);
	for (const epc of event.inputEPCList ?? []) add("inputEPC", epc);
	for (const epc of event.outputEPCList ?? []) add("outputEPC", epc);
	for (const q of [...(event.quantityList ?? []), ...(event.childQuantityList ?? [])]) add("epcClass", q.epcClass);
	for (const q of event.inputQuantityList ?? []) add("inputEPCClass", q.epcClass);
	for (const q of event.outputQuantityList ?? []) add("outputEPCClass", q.epcClass);
	for (const t of event.bizTransactionList ?? [])
		add("bizTransaction", t.bizTransaction, t.type ? normalizeCbv("bizTransactionType", t.type) : "");
	for (const s of event.sourceList ?? []) add("source", s.source, normalizeCbv("sourceDestType", s.type));
	for (const d of event.destinationList ?? [])
		add("destination", d.destination, normalizeCbv("sourceDestType", d.type));
	const vocabulary = (kind: "bizStep" | "disposition", value: string | undefined) =>
		value ? normalizeCbv(kind, value) : null;
	return {
		tenantId: at.tenantId,
		sourceMessageId: at.sourceMessageId,
		eventIndex: at.eventIndex,
		type: event.type,
		eventTime,
		recordTime: at.recordTime,
		action: event.action ?? null,
		bizStep: vocabulary("bizStep", event.bizStep),
		disposition: vocabulary("disposition", event.disposition),
		readPoint: event.readPoint?.id || null,
		bizLocation: event.bizLocation?.id || null,
		transformationId: event.transformationID ?? null,
		eventId: event.eventID ?? null,
		values,
		// Parsed from XML: strings, numbers, arrays and plain objects only.
		event: event as unknown as { [key: string]: Json },
	};
}
