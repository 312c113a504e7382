import type { DispositionModifier } from "../errors/index.ts";

/**
 * The Disposition field of an MDN (RFC 3798 §3.2.6, RFC 4130 §7.4.3):
 * `automatic-action/MDN-sent-automatically; processed/error: decryption-failed`.
 */
export type Disposition =
	| { type: "processed" }
	| { type: "processed"; modifier: "error"; detail: DispositionModifier | string }
	| { type: "processed"; modifier: "warning"; detail: string }
	| { type: "failed"; modifier: "failure"; detail: string };

export interface ParsedDisposition {
	actionMode: string;
	sendingMode: string;
	type: string;
	modifier?: string;
	detail?: string;
	/** The field as received. */
	raw: string;
}

export function formatDisposition(disposition: Disposition): string {
	const prefix = "automatic-action/MDN-sent-automatically; ";
	if (!("modifier" in disposition)) return `${prefix}${disposition.type}`;
	// RFC 4130 §7.4.3 (Drummond 3Q13): `processed/error: x`, `failed/Failure: x`.
	const modifier = disposition.modifier === "failure" ? "Failure" : disposition.modifier;
	return `${prefix}${disposition.type}/${modifier}: ${disposition.detail}`;
}

/**
 * Tolerant reading (as2-anchors §D7): missing space after `;`, folded or spaced fields, bare
 * `error: x` without `processed/`, any case.
 */
export function parseDisposition(raw: string): ParsedDisposition {
	const text = raw.replace(/\s+/g, " ").trim();
	const semicolon = text.indexOf(";");
	const modePart = semicolon >= 0 ? text.slice(0, semicolon) : "";
	const typePart = (semicolon >= 0 ? text.slice(semicolon + 1) : text).trim();
	const [actionMode = "", sendingMode = ""] = modePart.split("/").map((s) => s.trim());
	const colon = typePart.indexOf(":");
	const head = (colon >= 0 ? typePart.slice(0, colon) : typePart).trim();
	const detail = colon >= 0 ? typePart.slice(colon + 1).trim() : undefined;
	const [first = "", second] = head.split("/").map((s) => s.trim().toLowerCase());
	let type = first;
	let modifier = second;
	if (!second && (first === "error" || first === "warning" || first === "failure")) {
		type = first === "failure" ? "failed" : "processed";
		modifier = first;
	}
	return {
		actionMode,
		sendingMode,
		type,
		...(modifier ? { modifier } : {}),
		...(detail ? { detail } : {}),
		raw,
	};
}

/** Processed with no error or failure: the partner took the message. Warnings still count. */
export function isPositiveDisposition(d: ParsedDisposition): boolean {
	return d.type === "processed" && (d.modifier === undefined || d.modifier === "warning");
}
