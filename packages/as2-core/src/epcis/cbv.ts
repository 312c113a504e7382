/**
 * Core Business Vocabulary (CBV 1.2 §7, CBV 2.0 §7–§8) standard values, and the one
 * canonical form we store and query: the bare word (`shipping`), whichever of the URN
 * (`urn:epcglobal:cbv:bizstep:shipping`), the Web URI (`https://ref.gs1.org/cbv/BizStep-shipping`)
 * or the compact `cbv:BizStep-shipping` a document used.
 */
export type CbvKind = "bizStep" | "disposition" | "bizTransactionType" | "sourceDestType" | "errorReason";

export const CBV_VALUES: Readonly<Record<CbvKind, ReadonlySet<string>>> = {
	bizStep: new Set(
		"accepting arriving assembling collecting commissioning consigning creating_class_instance cycle_counting decommissioning departing destroying disassembling dispensing encoding entering_exiting holding inspecting installing killing loading other packing picking receiving removing repackaging repairing replacing reserving retail_selling sampling sensor_reporting shipping staging_outbound stock_taking stocking storing transporting unloading unpacking void_shipping".split(
			" ",
		),
	),
	disposition: new Set(
		"active available completeness_verified completeness_inferred conformant container_closed container_open damaged destroyed dispensed disposed encoded expired in_progress in_transit inactive mismatch_instance mismatch_class mismatch_quantity needs_replacement no_pedigree_match non_conformant non_sellable_other partially_dispensed recalled reserved retail_sold returned sellable_accessible sellable_not_accessible stolen unavailable unknown".split(
			" ",
		),
	),
	bizTransactionType: new Set("bol cert desadv inv pedigree po poc prodorder recadv rma testprd upevt".split(" ")),
	sourceDestType: new Set(["owning_party", "possessing_party", "location"]),
	errorReason: new Set(["did_not_occur", "incorrect_data"]),
};

const URN_PREFIX: Record<CbvKind, string> = {
	bizStep: "urn:epcglobal:cbv:bizstep:",
	disposition: "urn:epcglobal:cbv:disp:",
	bizTransactionType: "urn:epcglobal:cbv:btt:",
	sourceDestType: "urn:epcglobal:cbv:sdt:",
	errorReason: "urn:epcglobal:cbv:er:",
};
const WEB_TERM: Record<CbvKind, string> = {
	bizStep: "BizStep-",
	disposition: "Disp-",
	bizTransactionType: "BTT-",
	sourceDestType: "SDT-",
	errorReason: "ER-",
};
const WEB_BASES = ["https://ref.gs1.org/cbv/", "http://ref.gs1.org/cbv/", "https://gs1.org/voc/", "cbv:", "gs1:"];

export type CbvForm = "urn" | "web" | "bare" | "custom";

/** How a vocabulary value is written and whether it names a standard CBV term. */
export interface CbvClassification {
	canonical: string;
	form: CbvForm;
	/** The term is a standard CBV value of this kind. */
	standard: boolean;
	/** Written in a CBV form (URN, Web URI, bare word) but the term is unknown: a typo, not a custom value. */
	unknownCbvTerm: boolean;
}

/**
 * @example
 * classifyCbv("bizStep", "urn:epcglobal:cbv:bizstep:shiping"); // { canonical: "urn:…:shiping", form: "urn", standard: false, unknownCbvTerm: true }
 */
export function classifyCbv(kind: CbvKind, value: string): CbvClassification {
	const v = value.trim();
	const known = CBV_VALUES[kind];
	let term: string | undefined;
	let form: CbvForm = "custom";
	if (v.startsWith(URN_PREFIX[kind])) {
		term = v.slice(URN_PREFIX[kind].length);
		form = "urn";
	} else {
		for (const base of WEB_BASES) {
			if (v.startsWith(base + WEB_TERM[kind])) {
				term = v.slice(base.length + WEB_TERM[kind].length);
				form = "web";
				break;
			}
		}
		if (term === undefined && /^[a-z_]+$/.test(v)) {
			term = v;
			form = "bare";
		}
	}
	if (term !== undefined && known.has(term)) return { canonical: term, form, standard: true, unknownCbvTerm: false };
	return { canonical: v, form, standard: false, unknownCbvTerm: term !== undefined };
}

/**
 * The canonical form of a CBV value: the bare word for a standard term in any of its
 * forms; anything else (custom URIs, unknown terms) trimmed but otherwise as given.
 *
 * @example
 * normalizeCbv("bizStep", "urn:epcglobal:cbv:bizstep:shipping"); // "shipping"
 * normalizeCbv("bizStep", "https://ref.gs1.org/cbv/BizStep-shipping"); // "shipping"
 * normalizeCbv("bizStep", "urn:example:step:quality-check"); // unchanged
 */
export function normalizeCbv(kind: CbvKind, value: string): string {
	return classifyCbv(kind, value).canonical;
}
