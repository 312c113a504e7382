import { checkEpcUri } from "../epc-uri.ts";
import { NS_CBV_MDA, NS_GS1US_HC, NS_SBDH } from "../namespaces.ts";
import type { LocatedEvent } from "../read-document.ts";
import type { XmlElement } from "../xml/xml-tree.ts";
import { at, children, find, type RuleContext, type RuleSet } from "./rule-context.ts";

/** Product master data the GS1 US guideline carries per GTIN (EPCClass vocabulary, CBV master data attributes). */
const PRODUCT_ATTRIBUTES = ["regulatedProductName", "dosageFormType", "strengthDescription", "netContentDescription"];
/** Party/location master data for the trading partners' business name and address. */
const LOCATION_ATTRIBUTES = ["name", "streetAddressOne", "city", "state", "postalCode", "countryCode"];
const MDA = "urn:epcglobal:cbv:mda#";

/**
 * `dscsa_compliance`: the data the GS1 US Implementation Guideline for the Drug Supply Chain
 * Security Act (Release 1.2/1.3) asks of an EPCIS document that conveys transaction
 * information: SBDH sender and receiver, commissioning with ILMD lot and expiry, serialized
 * product identifiers (SGTIN), shipping/receiving with a purchase order, owning party and
 * location for source and destination, product and party master data, and the transaction
 * statement. Each missing element is an error naming the requirement.
 */
export function createDscsaRules(ctx: RuleContext): RuleSet {
	let headerSeen = false;
	let statement = false;
	let shipping = 0;
	let commissioning = 0;
	let events = 0;
	const productMasterData = new Map<string, Set<string>>();
	const locationMasterData = new Map<string, Set<string>>();
	const productsNamed = new Map<string, LocatedEvent>();
	const partiesNamed = new Map<string, LocatedEvent>();

	const hasStatement = (element: XmlElement): boolean =>
		find(
			element,
			(e) => e.ns === NS_GS1US_HC && e.local === "affirmTransactionStatement" && /^(true|1)$/.test(e.text.trim()),
		) !== undefined;

	return {
		header(header, path) {
			headerSeen = true;
			const sbdh = header.children.find((c) => c.ns === NS_SBDH && c.local === "StandardBusinessDocumentHeader");
			const where = { path, line: header.line, column: header.column };
			if (!sbdh) {
				ctx.error({
					...where,
					code: "DSCSA_SBDH_REQUIRED",
					message: "DSCSA: the EPCISHeader must carry a Standard Business Document Header (sender and receiver)",
				});
			} else {
				for (const role of ["Sender", "Receiver"]) {
					const party = sbdh.children.find((c) => c.ns === NS_SBDH && c.local === role);
					const id = party?.children.find((c) => c.ns === NS_SBDH && c.local === "Identifier");
					if (!id || id.text.trim() === "") {
						ctx.error({
							...where,
							path: `${path}/sbdh:StandardBusinessDocumentHeader`,
							code: `DSCSA_SBDH_${role.toUpperCase()}`,
							message: `DSCSA: SBDH ${role} with an Identifier (GLN or SGLN) is required`,
						});
					} else {
						const authority = id.attributes.find((a) => a.local === "Authority")?.value;
						if (authority !== "GLN" && authority !== "SGLN") {
							ctx.warning({
								...where,
								line: id.line,
								column: id.column,
								code: "DSCSA_SBDH_AUTHORITY",
								message: `DSCSA: SBDH ${role} Identifier should have Authority GLN or SGLN`,
							});
						}
					}
				}
			}
			for (const vocabulary of findAll(header, (e) => e.ns === null && e.local === "Vocabulary")) {
				const type = vocabulary.attributes.find((a) => a.local === "type")?.value.trim() ?? "";
				const target =
					type === "urn:epcglobal:epcis:vtype:EPCClass"
						? productMasterData
						: /Location$|ReadPoint$/.test(type)
							? locationMasterData
							: null;
				if (!target) continue;
				for (const element of findAll(vocabulary, (e) => e.ns === null && e.local === "VocabularyElement")) {
					const id = element.attributes.find((a) => a.local === "id")?.value.trim() ?? "";
					const attributes = new Set<string>();
					for (const attribute of children(element, "attribute")) {
						const name = attribute.attributes.find((a) => a.local === "id")?.value.trim() ?? "";
						if (name.startsWith(MDA) && attribute.text.trim() !== "") attributes.add(name.slice(MDA.length));
					}
					target.set(id, attributes);
				}
			}
			if (hasStatement(header)) statement = true;
		},

		other(element) {
			if (hasStatement(element)) statement = true;
		},

		event(event, located) {
			events++;
			if (hasStatement(located.element)) statement = true;
			const step = event.bizStep;
			const where = at(located);
			if (event.type === "ObjectEvent" && step === "commissioning") {
				commissioning++;
				for (const epc of event.epcList ?? []) {
					const gtin = gtinOf(epc);
					if (gtin) productsNamed.set(gtin, located);
				}
				if (event.action !== "ADD")
					ctx.error({
						...where,
						code: "DSCSA_COMMISSIONING_ACTION",
						message: "DSCSA: a commissioning event has action ADD",
					});
				requireSerials(ctx, event.epcList, located, "commissioning");
				const ilmd =
					located.element.children.find((c) => c.local === "ilmd") ??
					find(located.element, (e) => e.ns === null && e.local === "ilmd");
				const ilmdValue = (local: string): string | undefined =>
					ilmd ? find(ilmd, (e) => e.ns === NS_CBV_MDA && e.local === local)?.text.trim() : undefined;
				if (!ilmdValue("lotNumber")) {
					ctx.error({
						...where,
						code: "DSCSA_ILMD_LOT_NUMBER",
						message: "DSCSA: commissioning ILMD must carry cbvmda:lotNumber",
					});
				}
				const expiry = ilmdValue("itemExpirationDate");
				if (!expiry) {
					ctx.error({
						...where,
						code: "DSCSA_ILMD_EXPIRATION_DATE",
						message: "DSCSA: commissioning ILMD must carry cbvmda:itemExpirationDate",
					});
				} else if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(expiry)) {
					ctx.error({
						...where,
						code: "DSCSA_ILMD_EXPIRATION_DATE",
						message: `DSCSA: cbvmda:itemExpirationDate '${expiry}' is not a date (YYYY-MM-DD)`,
					});
				}
			}
			if (event.type === "AggregationEvent" && (event.action === "ADD" || event.action === "DELETE")) {
				requireSerials(ctx, event.childEPCs, located, "packing", true);
			}
			if (event.type === "ObjectEvent" && (step === "shipping" || step === "receiving")) {
				if (step === "shipping") shipping++;
				if (event.action !== "OBSERVE")
					ctx.error({ ...where, code: "DSCSA_TRANSFER_ACTION", message: `DSCSA: a ${step} event has action OBSERVE` });
				requireSerials(ctx, event.epcList, located, step, true);
				for (const epc of event.epcList ?? []) {
					const gtin = gtinOf(epc);
					if (gtin) productsNamed.set(gtin, located);
				}
				const types = new Set((event.bizTransactionList ?? []).map((b) => b.type));
				if (!types.has("po")) {
					ctx.error({
						...where,
						code: "DSCSA_BIZ_TRANSACTION_PO",
						message: `DSCSA: a ${step} event names the purchase order (bizTransaction type po)`,
					});
				}
				if (!types.has("desadv")) {
					ctx.warning({
						...where,
						code: "DSCSA_BIZ_TRANSACTION_DESADV",
						message: `DSCSA: a ${step} event should name the despatch advice (bizTransaction type desadv)`,
					});
				}
				for (const [list, items] of [
					["source", (event.sourceList ?? []).map((s) => ({ type: s.type, id: s.source }))],
					["destination", (event.destinationList ?? []).map((d) => ({ type: d.type, id: d.destination }))],
				] as const) {
					for (const type of ["owning_party", "location"]) {
						const found = items.filter((i) => i.type === type);
						if (found.length === 0) {
							ctx.error({
								...where,
								code: `DSCSA_${list.toUpperCase()}_${type.toUpperCase()}`,
								message: `DSCSA: ${list}List must name the ${type.replace("_", " ")} (type ${type})`,
							});
						}
						for (const f of found) partiesNamed.set(f.id, located);
					}
				}
				if (event.readPoint === undefined || event.bizLocation === undefined) {
					ctx.warning({
						...where,
						code: "DSCSA_READ_POINT",
						message: `DSCSA: a ${step} event should give readPoint and bizLocation`,
					});
				}
			}
		},

		finish() {
			if (!headerSeen) {
				ctx.error({
					code: "DSCSA_SBDH_REQUIRED",
					message: "DSCSA: the document needs an EPCISHeader with a Standard Business Document Header",
					path: "/",
				});
			}
			if (events === 0) ctx.error({ code: "DSCSA_NO_EVENTS", message: "DSCSA: the document carries no event" });
			if (shipping > 0 && commissioning === 0) {
				ctx.error({
					code: "DSCSA_COMMISSIONING_REQUIRED",
					message:
						"DSCSA: shipped products need their commissioning events (lot number and expiration date travel in their ILMD)",
				});
			}
			if (shipping > 0 && !statement) {
				ctx.error({
					code: "DSCSA_TRANSACTION_STATEMENT",
					message:
						"DSCSA: the transaction statement (gs1ushc:dscsaTransactionStatement with affirmTransactionStatement true) is missing",
				});
			}
			for (const [gtin, located] of productsNamed) {
				const attributes = productMasterData.get(`urn:epc:idpat:sgtin:${gtin}.*`);
				const missing = PRODUCT_ATTRIBUTES.filter((a) => !attributes?.has(a));
				if (missing.length > 0) {
					ctx.error({
						...at(located),
						code: "DSCSA_PRODUCT_MASTER_DATA",
						message: `DSCSA: product master data for urn:epc:idpat:sgtin:${gtin}.* lacks ${missing.join(", ")}`,
					});
				}
			}
			for (const [id, located] of partiesNamed) {
				const attributes = locationMasterData.get(id);
				const missing = LOCATION_ATTRIBUTES.filter((a) => !attributes?.has(a));
				if (missing.length > 0) {
					ctx.error({
						...at(located),
						code: "DSCSA_PARTY_MASTER_DATA",
						message: `DSCSA: master data for ${id} (business name and address) lacks ${missing.join(", ")}`,
					});
				}
			}
		},
	};
}

function requireSerials(
	ctx: RuleContext,
	epcs: string[] | undefined,
	located: LocatedEvent,
	what: string,
	ssccAllowed = false,
): void {
	if (!epcs || epcs.length === 0) {
		ctx.error({
			...at(located),
			code: "DSCSA_PRODUCT_IDENTIFIER",
			message: `DSCSA: a ${what} event lists serialized product identifiers (SGTIN)`,
		});
		return;
	}
	epcs.forEach((epc, i) => {
		const check = checkEpcUri(epc);
		const ok = !check.problem && (check.scheme === "sgtin" || (ssccAllowed && check.scheme === "sscc"));
		if (!ok) {
			ctx.error({
				...at(located, `${located.path}/epc[${i + 1}]`),
				code: "DSCSA_PRODUCT_IDENTIFIER",
				message: `DSCSA: '${epc}' is not a serialized product identifier (SGTIN${ssccAllowed ? " or SSCC" : ""})`,
			});
		}
	});
}

/** Company prefix and item reference of an SGTIN pure identity, as in `urn:epc:idpat:sgtin:CP.IR.*`. */
function gtinOf(epc: string): string | undefined {
	const m = /^urn:epc:id:sgtin:([0-9]+)\.([0-9]+)\./.exec(epc.trim());
	return m ? `${m[1]}.${m[2]}` : undefined;
}

function findAll(element: XmlElement, match: (e: XmlElement) => boolean, out: XmlElement[] = []): XmlElement[] {
	if (match(element)) out.push(element);
	for (const c of element.children) findAll(c, match, out);
	return out;
}
