/** EPCIS answers as `/v1/epcis/validate` and `/v1/epcis/query` give them (interface spec, EPCIS; decisions.md). */
export type EpcisRule = "schema_compliance" | "business_rules" | "dscsa_compliance";

export const EPCIS_RULES: [EpcisRule, string][] = [
	["schema_compliance", "Schema (GS1 XSD)"],
	["business_rules", "Business rules (CBV, EPCs)"],
	["dscsa_compliance", "DSCSA"],
];

export interface EpcisIssue {
	rule: EpcisRule | "parse";
	code: string;
	message: string;
	/** 0-based position of the event in the document. */
	event_index: number | null;
	path: string | null;
	line: number | null;
	column: number | null;
}

export interface EpcisValidation {
	valid: boolean;
	validation_results: Partial<Record<EpcisRule, "passed" | "failed">>;
	warnings: EpcisIssue[];
	errors: EpcisIssue[];
	epcis_version: "1.2" | "2.0" | null;
	event_count: number;
}

/** An event in EPCIS 2.0 JSON form, with the message that carried it. */
export interface EpcisEvent {
	type: string;
	eventTime: string;
	eventID?: string;
	action?: string;
	bizStep?: string;
	disposition?: string;
	readPoint?: { id: string };
	bizLocation?: { id: string };
	epcList?: string[];
	childEPCs?: string[];
	inputEPCList?: string[];
	outputEPCList?: string[];
	parentID?: string;
	source_message_id: string;
}
