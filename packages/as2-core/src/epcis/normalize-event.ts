import { type CbvKind, normalizeCbv } from "./cbv.ts";
import type { EpcisEvent, EpcisQuantityElement } from "./types.ts";
import type { XmlElement } from "./xml/xml-tree.ts";

const trim = (s: string): string => s.replace(/[ \t\n\r]+/g, " ").trim();

/** Fields EPCIS 1.2 wraps in `extension` / `baseExtension` that 2.0 puts on the event itself. */
const WRAPPERS = new Set(["extension", "baseExtension"]);

const EPC_LISTS = new Set(["epcList", "childEPCs", "inputEPCList", "outputEPCList"]);
const QUANTITY_LISTS = new Set(["quantityList", "childQuantityList", "inputQuantityList", "outputQuantityList"]);
const PLAIN = new Set([
	"eventTime",
	"recordTime",
	"eventTimeZoneOffset",
	"eventID",
	"certificationInfo",
	"action",
	"parentID",
	"transformationID",
]);
const VOCAB: Record<string, CbvKind> = { bizStep: "bizStep", disposition: "disposition" };

/**
 * An event element (EPCIS 1.2 or 2.0 XML) in the EPCIS 2.0 JSON-LD shape (EPCIS 2.0 §12.2):
 * 1.2's extension wrappers flattened, vocabulary values in canonical form, extension elements
 * under their qualified names.
 */
export function normalizeEvent(element: XmlElement): EpcisEvent {
	if (element.local === "QuantityEvent") return quantityEvent(element);
	const event: EpcisEvent = { type: element.local as EpcisEvent["type"] };
	const visit = (parent: XmlElement): void => {
		for (const child of parent.children) {
			const name = child.local;
			if (child.ns !== null) {
				addExtension(event, child);
				continue;
			}
			if (WRAPPERS.has(name)) {
				visit(child);
				continue;
			}
			if (PLAIN.has(name)) event[name] = trim(child.text);
			else if (name in VOCAB) event[name] = normalizeCbv(VOCAB[name]!, child.text);
			else if (name === "readPoint" || name === "bizLocation") {
				const id = child.children.find((c) => c.local === "id" && c.ns === null);
				event[name] = { id: trim(id?.text ?? "") };
			} else if (EPC_LISTS.has(name))
				event[name] = child.children.filter((c) => c.local === "epc").map((c) => trim(c.text));
			else if (QUANTITY_LISTS.has(name)) event[name] = child.children.map(quantityElement);
			else if (name === "bizTransactionList") {
				event.bizTransactionList = child.children.map((c) => {
					const type = attribute(c, "type");
					return type === undefined
						? { bizTransaction: trim(c.text) }
						: { type: normalizeCbv("bizTransactionType", type), bizTransaction: trim(c.text) };
				});
			} else if (name === "sourceList") {
				event.sourceList = child.children.map((c) => ({
					type: normalizeCbv("sourceDestType", attribute(c, "type") ?? ""),
					source: trim(c.text),
				}));
			} else if (name === "destinationList") {
				event.destinationList = child.children.map((c) => ({
					type: normalizeCbv("sourceDestType", attribute(c, "type") ?? ""),
					destination: trim(c.text),
				}));
			} else if (name === "ilmd") event.ilmd = toJson(child, true) as Record<string, unknown>;
			else if (name === "sensorElementList") event.sensorElementList = child.children.map(sensorElement);
			else if (name === "persistentDisposition") {
				const set = child.children.filter((c) => c.local === "set").map((c) => normalizeCbv("disposition", c.text));
				const unset = child.children.filter((c) => c.local === "unset").map((c) => normalizeCbv("disposition", c.text));
				event.persistentDisposition = { ...(set.length ? { set } : {}), ...(unset.length ? { unset } : {}) };
			} else if (name === "errorDeclaration") {
				const declaration: NonNullable<EpcisEvent["errorDeclaration"]> = {};
				for (const c of child.children) {
					if (c.ns !== null) declaration[c.qname] = toJson(c);
					else if (c.local === "declarationTime") declaration.declarationTime = trim(c.text);
					else if (c.local === "reason") declaration.reason = normalizeCbv("errorReason", c.text);
					else if (c.local === "correctiveEventIDs")
						declaration.correctiveEventIDs = c.children.map((x) => trim(x.text));
				}
				event.errorDeclaration = declaration;
			}
		}
	};
	visit(element);
	return event;
}

/**
 * The EPCIS 1.0/1.1 QuantityEvent, which 2.0 dropped, as the ObjectEvent that replaces it:
 * we read it as action OBSERVE with one quantity element (EPCIS 1.2 §7.4.4 deprecates it in favour
 * of an ObjectEvent with a quantity list).
 */
function quantityEvent(element: XmlElement): EpcisEvent {
	const rest: XmlElement = {
		...element,
		children: element.children.filter((c) => c.ns !== null || (c.local !== "epcClass" && c.local !== "quantity")),
	};
	const event = normalizeEvent({ ...rest, local: "ObjectEvent" });
	const epcClass = element.children.find((c) => c.ns === null && c.local === "epcClass");
	const quantity = element.children.find((c) => c.ns === null && c.local === "quantity");
	const { type, eventTime, eventTimeZoneOffset, recordTime, ...others } = event;
	return {
		type,
		...(eventTime !== undefined ? { eventTime } : {}),
		...(eventTimeZoneOffset !== undefined ? { eventTimeZoneOffset } : {}),
		...(recordTime !== undefined ? { recordTime } : {}),
		action: "OBSERVE",
		quantityList: [
			{ epcClass: trim(epcClass?.text ?? ""), ...(quantity ? { quantity: Number(trim(quantity.text)) } : {}) },
		],
		...others,
	};
}

function addExtension(event: EpcisEvent, child: XmlElement): void {
	const value = toJson(child);
	const existing = event[child.qname];
	if (existing === undefined) event[child.qname] = value;
	else if (Array.isArray(existing)) existing.push(value);
	else event[child.qname] = [existing, value];
}

function attribute(element: XmlElement, local: string): string | undefined {
	return element.attributes.find((a) => a.ns === null && a.local === local)?.value;
}

function quantityElement(element: XmlElement): EpcisQuantityElement {
	const out: EpcisQuantityElement = { epcClass: "" };
	for (const c of element.children) {
		if (c.local === "epcClass") out.epcClass = trim(c.text);
		else if (c.local === "quantity" && trim(c.text) !== "") out.quantity = Number(trim(c.text));
		else if (c.local === "uom") out.uom = trim(c.text);
	}
	return out;
}

function sensorElement(element: XmlElement): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	const reports: Record<string, unknown>[] = [];
	for (const c of element.children) {
		if (c.local === "sensorMetadata" && c.ns === null) out.sensorMetadata = attributesOf(c);
		else if (c.local === "sensorReport" && c.ns === null) {
			const report = attributesOf(c);
			for (const key of ["value", "minValue", "maxValue", "sDev", "meanValue", "percRank", "percValue"]) {
				if (typeof report[key] === "string") report[key] = Number(report[key]);
			}
			if (typeof report.booleanValue === "string") report.booleanValue = /^(true|1)$/.test(report.booleanValue.trim());
			reports.push(report);
		} else if (c.ns !== null) out[c.qname] = toJson(c);
	}
	out.sensorReport = reports;
	return out;
}

function attributesOf(element: XmlElement): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const a of element.attributes) out[a.ns === null ? a.local : a.qname] = a.value;
	return out;
}

/** An extension element as JSON: text for a leaf, else an object of its children by qualified name. */
function toJson(element: XmlElement, root = false): unknown {
	if (element.children.length === 0 && element.attributes.length === 0 && !root) return trim(element.text);
	const out: Record<string, unknown> = {};
	for (const a of element.attributes) out[`@${a.qname}`] = a.value;
	for (const c of element.children) {
		if (c.ns === null && c.local === "extension" && root) {
			Object.assign(out, toJson(c, true) as Record<string, unknown>);
			continue;
		}
		const value = toJson(c);
		const existing = out[c.qname];
		if (existing === undefined) out[c.qname] = value;
		else if (Array.isArray(existing)) existing.push(value);
		else out[c.qname] = [existing, value];
	}
	if (element.children.length === 0 && trim(element.text) !== "") out["#text"] = trim(element.text);
	return out;
}
