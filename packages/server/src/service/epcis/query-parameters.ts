import { As2Error, type CbvKind, normalizeCbv } from "@as2kit/core";
import type {
	EpcisEventFilter,
	EpcisQueryOptions,
	EpcisStringMatch,
	EpcisTimeRange,
	EpcisValueKind,
} from "@as2kit/core/store";
import { parseDateTime } from "./event-record.ts";

/** A SimpleEventQuery's parameters, checked and normalized for the store. */
export interface SimpleEventQuery {
	filter: EpcisEventFilter;
	order: Pick<EpcisQueryOptions, "orderBy" | "direction">;
	eventCountLimit?: number;
	maxEventCount?: number;
}

const EVENT_TYPES = new Set([
	"ObjectEvent",
	"AggregationEvent",
	"TransactionEvent",
	"TransformationEvent",
	"AssociationEvent",
	"QuantityEvent",
]);
const ACTIONS = new Set(["ADD", "OBSERVE", "DELETE"]);

/** MATCH_ parameters (EPCIS 1.2/2.0 §8.2.7.1) and the event fields each one looks in. */
const MATCH: Record<string, { kinds: EpcisValueKind[]; classes: boolean }> = {
	MATCH_epc: { kinds: ["epc"], classes: false },
	MATCH_parentID: { kinds: ["parentID"], classes: false },
	MATCH_inputEPC: { kinds: ["inputEPC"], classes: false },
	MATCH_outputEPC: { kinds: ["outputEPC"], classes: false },
	MATCH_anyEPC: { kinds: ["epc", "parentID", "inputEPC", "outputEPC"], classes: false },
	MATCH_epcClass: { kinds: ["epcClass"], classes: true },
	MATCH_inputEPCClass: { kinds: ["inputEPCClass"], classes: true },
	MATCH_outputEPCClass: { kinds: ["outputEPCClass"], classes: true },
	MATCH_anyEPCClass: { kinds: ["epcClass", "inputEPCClass", "outputEPCClass"], classes: true },
};

/** EQ_bizTransaction_<type>, EQ_source_<type>, EQ_destination_<type>: the type is in the name. */
const TYPED: Record<string, { kind: EpcisValueKind; vocabulary: CbvKind }> = {
	EQ_bizTransaction_: { kind: "bizTransaction", vocabulary: "bizTransactionType" },
	EQ_source_: { kind: "source", vocabulary: "sourceDestType" },
	EQ_destination_: { kind: "destination", vocabulary: "sourceDestType" },
};

const TIMES: Record<string, { field: "eventTime" | "recordTime"; bound: keyof EpcisTimeRange }> = {
	GE_eventTime: { field: "eventTime", bound: "gte" },
	LT_eventTime: { field: "eventTime", bound: "lt" },
	LE_eventTime: { field: "eventTime", bound: "lte" },
	GE_recordTime: { field: "recordTime", bound: "gte" },
	LT_recordTime: { field: "recordTime", bound: "lt" },
	LE_recordTime: { field: "recordTime", bound: "lte" },
};

/**
 * Reads the parameters of a SimpleEventQuery (EPCIS 1.2 §8.2.7.1, the subset of EPCIS 2.0
 * §8.2.7.1 this service indexes). Values are a single string or a list: OR within a
 * parameter, AND across parameters. Vocabulary values are compared in canonical CBV form, so
 * `urn:epcglobal:cbv:bizstep:shipping`, `https://ref.gs1.org/cbv/BizStep-shipping` and
 * `shipping` are one value. Every unknown or malformed parameter is named in one As2Error
 * EPCIS_QUERY_PARAMETER_INVALID (the standard's QueryParameterException), a 422.
 */
export function parseSimpleEventQuery(parameters: Record<string, unknown>): SimpleEventQuery {
	const errors: Record<string, string[]> = {};
	const fail = (name: string, message: string) => {
		const key = `parameters.${name}`;
		errors[key] = [...(errors[key] ?? []), message];
	};
	const filter = {
		types: [] as string[],
		actions: [] as string[],
		bizSteps: [] as string[],
		dispositions: [] as string[],
		transformationIds: [] as string[],
		eventIds: [] as string[],
		readPoint: [] as EpcisStringMatch[],
		bizLocation: [] as EpcisStringMatch[],
		values: [] as NonNullable<EpcisEventFilter["values"]>[number][],
		eventTime: {} as EpcisTimeRange,
		recordTime: {} as EpcisTimeRange,
	};
	const used = new Set<keyof EpcisEventFilter>();
	const order: SimpleEventQuery["order"] = { orderBy: "eventTime", direction: "desc" };
	let eventCountLimit: number | undefined;
	let maxEventCount: number | undefined;

	for (const [name, raw] of Object.entries(parameters)) {
		const list = (): string[] | null => {
			const values = typeof raw === "string" ? [raw] : raw;
			if (!Array.isArray(values) || values.some((x) => typeof x !== "string")) {
				fail(name, "must be a string or a list of strings");
				return null;
			}
			const trimmed = (values as string[]).map((x) => x.trim());
			if (trimmed.length === 0) fail(name, "must not be an empty list");
			else if (trimmed.some((x) => x === "")) fail(name, "must not contain empty values");
			else return trimmed;
			return null;
		};
		const single = (): string | null => {
			if (typeof raw === "string" && raw.trim() !== "") return raw.trim();
			fail(name, "must be a single non-empty string");
			return null;
		};
		const positive = (): number | null => {
			const n = typeof raw === "string" && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
			if (typeof n === "number" && Number.isSafeInteger(n) && n >= 1) return n;
			fail(name, "must be a positive integer");
			return null;
		};
		const push = <K extends "types" | "actions" | "bizSteps" | "dispositions" | "transformationIds" | "eventIds">(
			key: K,
			values: string[] | null,
		) => {
			if (!values) return;
			filter[key].push(...values);
			used.add(key);
		};

		if (name === "eventType") {
			const values = list();
			const unknown = values?.filter((x) => !EVENT_TYPES.has(x)) ?? [];
			if (unknown.length) fail(name, `unknown event type ${unknown.join(", ")}; known: ${[...EVENT_TYPES].join(", ")}`);
			else push("types", values);
		} else if (name in TIMES) {
			const text = single();
			if (text === null) continue;
			const instant = parseDateTime(text, { requireZone: true });
			if (!instant) {
				fail(name, "must be an ISO 8601 date-time with a time zone (2024-01-31T12:00:00Z)");
				continue;
			}
			const { field, bound } = TIMES[name]!;
			filter[field][bound] = instant;
			used.add(field);
		} else if (name === "EQ_action") {
			const values = list();
			const unknown = values?.filter((x) => !ACTIONS.has(x)) ?? [];
			if (unknown.length) fail(name, `must be ADD, OBSERVE or DELETE (not ${unknown.join(", ")})`);
			else push("actions", values);
		} else if (name === "EQ_bizStep") {
			push("bizSteps", list()?.map((x) => normalizeCbv("bizStep", x)) ?? null);
		} else if (name === "EQ_disposition") {
			push("dispositions", list()?.map((x) => normalizeCbv("disposition", x)) ?? null);
		} else if (name === "EQ_transformationID") {
			push("transformationIds", list());
		} else if (name === "EQ_eventID") {
			push("eventIds", list());
		} else if (name === "EQ_readPoint" || name === "EQ_bizLocation") {
			const values = list();
			if (!values) continue;
			const key = name === "EQ_readPoint" ? "readPoint" : "bizLocation";
			filter[key].push({ equals: values });
			used.add(key);
		} else if (name === "WD_readPoint" || name === "WD_bizLocation") {
			const values = list();
			if (!values) continue;
			const key = name === "WD_readPoint" ? "readPoint" : "bizLocation";
			filter[key].push(withDescendants(values));
			used.add(key);
		} else if (name in MATCH) {
			const values = list();
			if (!values) continue;
			const { kinds, classes } = MATCH[name]!;
			const match = epcMatch(values, classes);
			if (typeof match === "string") fail(name, match);
			else {
				filter.values.push({ kinds, match });
				used.add("values");
			}
		} else if (Object.keys(TYPED).some((prefix) => name.startsWith(prefix) && name.length > prefix.length)) {
			const prefix = Object.keys(TYPED).find((p) => name.startsWith(p))!;
			const { kind, vocabulary } = TYPED[prefix]!;
			const values = list();
			if (!values) continue;
			filter.values.push({
				kinds: [kind],
				type: normalizeCbv(vocabulary, name.slice(prefix.length)),
				match: { equals: values },
			});
			used.add("values");
		} else if (name === "orderBy") {
			const value = single();
			if (value === "eventTime" || value === "recordTime") order.orderBy = value;
			else if (value !== null) fail(name, "must be eventTime or recordTime");
		} else if (name === "orderDirection") {
			const value = single();
			if (value === "ASC" || value === "DESC") order.direction = value === "ASC" ? "asc" : "desc";
			else if (value !== null) fail(name, "must be ASC or DESC");
		} else if (name === "eventCountLimit") {
			eventCountLimit = positive() ?? undefined;
		} else if (name === "maxEventCount") {
			maxEventCount = positive() ?? undefined;
		} else {
			fail(name, "is not a parameter of SimpleEventQuery that this service supports");
		}
	}
	if ("eventCountLimit" in parameters && "maxEventCount" in parameters) {
		fail("eventCountLimit", "cannot be combined with maxEventCount");
		fail("maxEventCount", "cannot be combined with eventCountLimit");
	}
	const names = Object.keys(errors);
	if (names.length > 0) {
		throw new As2Error(
			"EPCIS_QUERY_PARAMETER_INVALID",
			`invalid query parameter ${names[0]}: ${errors[names[0]!]![0]}`,
			{
				fieldErrors: errors,
				details: {
					exception: "QueryParameterException",
					parameters: names.map((n) => n.slice("parameters.".length)),
				},
			},
		);
	}
	const picked = Object.fromEntries([...used].map((key) => [key, filter[key]])) as EpcisEventFilter;
	return {
		filter: picked,
		order,
		...(eventCountLimit !== undefined ? { eventCountLimit } : {}),
		...(maxEventCount !== undefined ? { maxEventCount } : {}),
	};
}

/**
 * MATCH_ values: a pure identity pattern (TDS §8: `urn:epc:idpat:sgtin:0614141.*.*`, `*`
 * fields last) matches the EPCs it covers, as a prefix of their pure identity URI. So does an
 * EPC URI with `*` as its last field(s), `urn:epc:id:sgtin:0614141.107346.*`: EPCIS 1.2/2.0
 * §8.2.7.1 lets MATCH_ values be EPC patterns, and clients write them in either scheme. Any
 * other value matches by string equality. For class parameters a pattern also covers classes
 * written as patterns (`urn:epc:idpat:sgtin:0614141.107346.*`, EPCIS 1.2 quantity lists)
 * and, for SGTIN, the LGTIN classes of its GTINs (`urn:epc:class:lgtin:0614141.107346.LOT`).
 * Returns an error text for a malformed pattern.
 */
export function epcMatch(values: readonly string[], classes: boolean): EpcisStringMatch | string {
	const equals = new Set<string>();
	const prefixes = new Set<string>();
	for (const value of values) {
		const m = /^urn:epc:(idpat|id):([A-Za-z0-9]+):(.*)$/.exec(value);
		if (!m || (m[1] === "id" && !m[3]!.includes("*"))) {
			equals.add(value);
			continue;
		}
		const scheme = m[2]!.toLowerCase();
		const fields = m[3]!.split(".");
		const firstStar = fields.indexOf("*");
		if (
			fields.some((f) => f === "" || (f.includes("*") && f !== "*")) ||
			(firstStar >= 0 && fields.slice(firstStar).some((f) => f !== "*"))
		) {
			return `${value} is not an EPC pattern (fields are values or *, every * after the values)`;
		}
		if (firstStar < 0) {
			equals.add(`urn:epc:id:${scheme}:${m[3]}`);
			if (classes) equals.add(value);
			continue;
		}
		const fixed = fields.slice(0, firstStar).join(".");
		const rest = fixed === "" ? "" : `${fixed}.`;
		prefixes.add(`urn:epc:id:${scheme}:${rest}`);
		if (classes) {
			prefixes.add(`urn:epc:idpat:${scheme}:${rest}`);
			if (scheme === "sgtin") prefixes.add(`urn:epc:class:lgtin:${rest}`);
		}
	}
	return { equals: [...equals], prefixes: [...prefixes] };
}

/**
 * WD_readPoint / WD_bizLocation without master data: a location and the identifiers under it.
 * An SGLN with extension 0 (the GLN itself) covers every extension of its GLN (GS1 AI 254
 * sub-locations); any identifier covers those that continue it after `/`, `:` or `.` (GS1
 * Digital Link `/254/…`, hierarchical URNs).
 */
export function withDescendants(values: readonly string[]): EpcisStringMatch {
	const prefixes = new Set<string>();
	for (const value of values) {
		for (const separator of ["/", ":", "."]) prefixes.add(value + separator);
		const sgln = /^(urn:epc:id:sgln:[0-9]+\.[0-9]*\.)0$/.exec(value);
		if (sgln) prefixes.add(sgln[1]!);
	}
	return { equals: [...values], prefixes: [...prefixes] };
}
