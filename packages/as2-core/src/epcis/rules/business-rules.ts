import { type CbvKind, classifyCbv } from "../cbv.ts";
import { checkEpcUri } from "../epc-uri.ts";
import { EPCIS_OWN_NAMESPACES } from "../namespaces.ts";
import type { LocatedEvent } from "../read-document.ts";
import type { EpcisEvent } from "../types.ts";
import type { XmlElement } from "../xml/xml-tree.ts";
import { at, parseInstant, type RuleContext, type RuleSet } from "./rule-context.ts";

const OFFSET = /^[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00)$/;
/** UN/ECE Recommendation 20 codes are 2–3 upper-case letters or digits (CBV 2.0 §8.2.6). */
const UOM = /^[A-Z0-9]{2,3}$/;

/**
 * `business_rules`: CBV 1.2/2.0 vocabularies, EPC URI syntax, action rules per event type,
 * time rules and extension namespaces (EPCIS 1.2 §7.4, EPCIS 2.0 §7.4, CBV 2.0 §7–§8, TDS §6).
 */
export function createBusinessRules(ctx: RuleContext): RuleSet {
	return {
		event(event, located) {
			checkTimes(ctx, event, located);
			checkVocabulary(ctx, located);
			checkIdentifiers(ctx, event, located);
			checkActions(ctx, event, located);
			checkQuantities(ctx, event, located);
			checkExtensions(ctx, located.element, located, located.path);
		},
	};
}

function checkTimes(ctx: RuleContext, event: EpcisEvent, located: LocatedEvent): void {
	const where = at(located);
	const eventTime = parseInstant(event.eventTime);
	if (event.eventTime !== undefined && eventTime === null) {
		ctx.error({
			...where,
			code: "BR_TIME_WITHOUT_OFFSET",
			message: `eventTime ${event.eventTime} has no time zone offset: EPCIS timestamps carry one (the 1.2 schema's xsd:dateTime does not insist)`,
		});
	}
	if (event.recordTime !== undefined && parseInstant(event.recordTime) === null) {
		ctx.error({
			...where,
			code: "BR_TIME_WITHOUT_OFFSET",
			message: `recordTime ${event.recordTime} has no time zone offset`,
		});
	}
	if (eventTime !== null && eventTime > ctx.now.getTime()) {
		ctx.error({
			...where,
			code: "BR_EVENT_TIME_IN_FUTURE",
			message: `eventTime ${event.eventTime} is in the future (now ${ctx.now.toISOString()})`,
		});
	}
	const recordTime = parseInstant(event.recordTime);
	if (eventTime !== null && recordTime !== null && recordTime < eventTime) {
		ctx.error({
			...where,
			code: "BR_RECORD_TIME_BEFORE_EVENT_TIME",
			message: `recordTime ${event.recordTime} is before eventTime ${event.eventTime}`,
		});
	}
	if (event.eventTimeZoneOffset !== undefined && !OFFSET.test(event.eventTimeZoneOffset)) {
		ctx.error({
			...where,
			code: "BR_INVALID_TIME_ZONE_OFFSET",
			message: `eventTimeZoneOffset '${event.eventTimeZoneOffset}' is not ±hh:mm between -14:00 and +14:00`,
		});
	}
	const declared = event.errorDeclaration?.declarationTime;
	if (event.errorDeclaration && declared === undefined) {
		ctx.error({
			...where,
			code: "BR_ERROR_DECLARATION_TIME",
			message: "errorDeclaration without declarationTime (EPCIS 2.0 §7.4.1.2)",
		});
	}
}

function vocabulary(
	ctx: RuleContext,
	kind: CbvKind,
	raw: string | undefined,
	located: LocatedEvent,
	field: string,
): void {
	if (raw === undefined) return;
	const c = classifyCbv(kind, raw);
	const where = at(located, `${located.path}/${field}`);
	if (c.unknownCbvTerm) {
		ctx.error({ ...where, code: "BR_UNKNOWN_CBV_VALUE", message: `${field} '${raw}' is not a ${kind} of the CBV` });
	} else if (c.form === "bare") {
		ctx.warning({
			...where,
			code: "BR_BARE_CBV_VALUE",
			message: `${field} '${raw}' is a bare word: in XML write the CBV URN or Web URI`,
		});
	} else if (c.form === "web" && ctx.version === "1.2") {
		ctx.warning({
			...where,
			code: "BR_CBV_WEB_URI_IN_1_2",
			message: `${field} '${raw}' uses the CBV 2.0 Web URI form in an EPCIS 1.2 document`,
		});
	}
}

function checkVocabulary(ctx: RuleContext, located: LocatedEvent): void {
	const raw = (local: string): XmlElement | undefined => descendant(located.element, local);
	vocabulary(ctx, "bizStep", raw("bizStep")?.text, located, "bizStep");
	vocabulary(ctx, "disposition", raw("disposition")?.text, located, "disposition");
	const each = (list: string, item: string, kind: CbvKind, attr: string): void => {
		const element = raw(list);
		element?.children.forEach((c, i) => {
			const value = c.attributes.find((a) => a.ns === null && a.local === attr)?.value;
			vocabulary(ctx, kind, value, located, `${list}/${item}[${i + 1}]/@${attr}`);
		});
	};
	each("bizTransactionList", "bizTransaction", "bizTransactionType", "type");
	each("sourceList", "source", "sourceDestType", "type");
	each("destinationList", "destination", "sourceDestType", "type");
	const persistent = raw("persistentDisposition");
	persistent?.children.forEach((c, i) => {
		vocabulary(ctx, "disposition", c.text, located, `persistentDisposition/${c.local}[${i + 1}]`);
	});
	const reason = raw("reason");
	if (reason) vocabulary(ctx, "errorReason", reason.text, located, "errorDeclaration/reason");
}

function descendant(element: XmlElement, local: string): XmlElement | undefined {
	for (const c of element.children) {
		if (c.ns !== null) continue;
		if (c.local === local) return c;
		if (c.local === "extension" || c.local === "baseExtension" || c.local === "errorDeclaration") {
			const hit = descendant(c, local);
			if (hit) return hit;
		}
	}
	return undefined;
}

function checkIdentifiers(ctx: RuleContext, event: EpcisEvent, located: LocatedEvent): void {
	const instance = (value: string, field: string): void => {
		const where = at(located, `${located.path}/${field}`);
		const check = checkEpcUri(value);
		if (check.kind === "tag" || check.kind === "raw" || (check.problem && check.kind !== "other-uri")) {
			ctx.error({ ...where, code: "BR_INVALID_EPC", message: `${field} '${value}': ${check.problem}` });
		} else if (check.problem) {
			ctx.error({ ...where, code: "BR_INVALID_EPC", message: `${field} '${value}' is ${check.problem}` });
		} else if (
			check.kind === "class" ||
			check.kind === "pattern" ||
			(check.kind === "digital-link" && (check.scheme === "gtin" || check.scheme === "lgtin"))
		) {
			ctx.error({
				...where,
				code: "BR_CLASS_AS_INSTANCE",
				message: `${field} '${value}' names a class of objects where an instance is expected`,
			});
		} else if (check.kind === "digital-link" && ctx.version === "1.2") {
			ctx.warning({
				...where,
				code: "BR_DIGITAL_LINK_IN_1_2",
				message: `${field} '${value}' is a GS1 Digital Link URI, an EPCIS 2.0 form`,
			});
		} else if (check.kind === "other-uri") {
			ctx.warning({
				...where,
				code: "BR_NOT_AN_EPC",
				message: `${field} '${value}' is not an EPC URI or GS1 Digital Link`,
			});
		}
	};
	const klass = (value: string, field: string): void => {
		const where = at(located, `${located.path}/${field}`);
		const check = checkEpcUri(value);
		if (check.problem)
			ctx.error({ ...where, code: "BR_INVALID_EPC_CLASS", message: `${field} '${value}': ${check.problem}` });
		else if (
			check.kind === "pure-identity" ||
			(check.kind === "digital-link" && check.scheme !== "gtin" && check.scheme !== "lgtin")
		) {
			ctx.error({
				...where,
				code: "BR_INSTANCE_AS_CLASS",
				message: `${field} '${value}' names an instance where a class is expected`,
			});
		} else if (check.kind === "other-uri") {
			ctx.warning({ ...where, code: "BR_NOT_AN_EPC_CLASS", message: `${field} '${value}' is not an EPC class URI` });
		}
	};
	for (const list of ["epcList", "childEPCs", "inputEPCList", "outputEPCList"] as const) {
		event[list]?.forEach((epc, i) => {
			instance(epc, `${list}/epc[${i + 1}]`);
		});
	}
	if (event.parentID !== undefined) instance(event.parentID, "parentID");
	for (const list of ["quantityList", "childQuantityList", "inputQuantityList", "outputQuantityList"] as const) {
		event[list]?.forEach((q, i) => {
			klass(q.epcClass, `${list}/quantityElement[${i + 1}]/epcClass`);
		});
	}
	for (const field of ["readPoint", "bizLocation"] as const) {
		const id = event[field]?.id;
		if (id === undefined) continue;
		const check = checkEpcUri(id);
		const where = at(located, `${located.path}/${field}/id`);
		if (check.problem && check.kind !== "other-uri")
			ctx.error({ ...where, code: "BR_INVALID_LOCATION", message: `${field} '${id}': ${check.problem}` });
		else if (check.kind === "pure-identity" && check.scheme !== "sgln") {
			ctx.warning({ ...where, code: "BR_LOCATION_NOT_SGLN", message: `${field} '${id}' is an EPC but not an SGLN` });
		}
	}
}

function checkActions(ctx: RuleContext, event: EpcisEvent, located: LocatedEvent): void {
	const where = at(located);
	const hasAny = (...lists: (unknown[] | undefined)[]): boolean => lists.some((l) => l !== undefined && l.length > 0);
	switch (event.type) {
		case "ObjectEvent":
			if (!hasAny(event.epcList, event.quantityList)) {
				ctx.error({
					...where,
					code: "BR_OBJECT_EVENT_EMPTY",
					message: "ObjectEvent names no object: epcList and quantityList are both empty (EPCIS §7.4.2)",
				});
			}
			if (event.ilmd !== undefined && event.action !== "ADD") {
				ctx.error({
					...where,
					code: "BR_ILMD_WITHOUT_ADD",
					message: `ilmd is only allowed when action is ADD, not ${event.action} (EPCIS §7.4.2)`,
				});
			}
			break;
		case "AggregationEvent":
		case "AssociationEvent":
			if ((event.action === "ADD" || event.action === "DELETE") && event.parentID === undefined) {
				ctx.error({
					...where,
					code: "BR_PARENT_ID_REQUIRED",
					message: `${event.type} with action ${event.action} requires parentID (EPCIS §7.4.3)`,
				});
			}
			if (event.action === "ADD" && !hasAny(event.childEPCs, event.childQuantityList)) {
				ctx.error({
					...where,
					code: "BR_CHILDREN_REQUIRED",
					message: `${event.type} with action ADD names no children (EPCIS §7.4.3)`,
				});
			}
			break;
		case "TransactionEvent":
			if (event.action === "ADD" && !hasAny(event.epcList, event.quantityList)) {
				ctx.error({
					...where,
					code: "BR_TRANSACTION_EVENT_EMPTY",
					message: "TransactionEvent with action ADD names no object (EPCIS §7.4.5)",
				});
			}
			break;
		case "TransformationEvent":
			if (!hasAny(event.inputEPCList, event.inputQuantityList, event.outputEPCList, event.outputQuantityList)) {
				ctx.error({
					...where,
					code: "BR_TRANSFORMATION_EMPTY",
					message: "TransformationEvent has neither inputs nor outputs (EPCIS §7.4.6)",
				});
			}
			break;
	}
	if (located.element.local === "QuantityEvent") {
		ctx.warning({
			...where,
			code: "BR_DEPRECATED_EVENT",
			message:
				"QuantityEvent is deprecated since EPCIS 1.1 and removed in 2.0 (read as an ObjectEvent with a quantity list)",
		});
	}
}

function checkQuantities(ctx: RuleContext, event: EpcisEvent, located: LocatedEvent): void {
	for (const list of ["quantityList", "childQuantityList", "inputQuantityList", "outputQuantityList"] as const) {
		event[list]?.forEach((q, i) => {
			const where = at(located, `${located.path}/${list}/quantityElement[${i + 1}]`);
			if (q.quantity !== undefined && q.quantity < 0) {
				ctx.error({ ...where, code: "BR_NEGATIVE_QUANTITY", message: `quantity ${q.quantity} is negative` });
			}
			if (q.quantity !== undefined && q.uom === undefined && !Number.isInteger(q.quantity)) {
				ctx.error({
					...where,
					code: "BR_COUNT_NOT_INTEGER",
					message: `quantity ${q.quantity} without uom is a count and must be an integer`,
				});
			}
			if (q.uom !== undefined && !UOM.test(q.uom)) {
				ctx.warning({
					...where,
					code: "BR_UOM_NOT_REC20",
					message: `uom '${q.uom}' is not a UN/ECE Recommendation 20 code`,
				});
			}
		});
	}
}

/** Custom extension elements must live in a namespace that is not EPCIS's own (EPCIS 1.2 §9.4, 2.0 §9.5). */
function checkExtensions(ctx: RuleContext, element: XmlElement, located: LocatedEvent, path: string): void {
	for (const c of element.children) {
		const childPath = `${path}/${c.qname}`;
		if (c.ns !== null && EPCIS_OWN_NAMESPACES.has(c.ns)) {
			ctx.error({
				...at(located, childPath, c),
				code: "BR_EXTENSION_IN_EPCIS_NAMESPACE",
				message: `extension element ${c.qname} uses the EPCIS namespace ${c.ns}: custom elements need a namespace of their own`,
			});
		} else if (c.ns === null && c.local === "extension") {
			for (const g of c.children) {
				if (g.ns === null && g.local === "extension") {
					for (const r of g.children) {
						ctx.warning({
							...at(located, `${childPath}/extension/${r.qname}`, r),
							code: "BR_RESERVED_EXTENSION",
							message: `${r.qname} sits in the extension point reserved for future EPCIS versions`,
						});
					}
				}
			}
			checkExtensions(ctx, c, located, childPath);
		} else if (
			c.ns === null &&
			(c.local === "ilmd" || c.local === "baseExtension" || c.local === "readPoint" || c.local === "bizLocation")
		) {
			checkExtensions(ctx, c, located, childPath);
		}
	}
}
