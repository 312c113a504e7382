import type { LocatedEvent } from "../read-document.ts";
import type { EpcisEvent, EpcisIssue, EpcisVersion } from "../types.ts";
import type { XmlElement } from "../xml/xml-tree.ts";

export type IssueInput = Omit<EpcisIssue, "rule">;

/** What a rule set sees as the document streams by, and where it reports. */
export interface RuleSet {
	header?(header: XmlElement, path: string): void;
	event(event: EpcisEvent, located: LocatedEvent): void;
	/** Any other element outside the event list (document-level extensions). */
	other?(element: XmlElement, path: string): void;
	finish?(): void;
}

export interface RuleContext {
	version: EpcisVersion;
	now: Date;
	error(issue: IssueInput): void;
	warning(issue: IssueInput): void;
}

export function at(
	located: LocatedEvent,
	path = located.path,
	element: XmlElement = located.element,
): Pick<EpcisIssue, "eventIndex" | "path" | "line" | "column"> {
	return { eventIndex: located.index, path, line: element.line, column: element.column };
}

/** The direct children of `element` with local name `local` and no namespace. */
export function children(element: XmlElement, local: string): XmlElement[] {
	return element.children.filter((c) => c.ns === null && c.local === local);
}

/** Finds, depth-first, the first descendant (or self) matching. */
export function find(element: XmlElement, match: (e: XmlElement) => boolean): XmlElement | undefined {
	if (match(element)) return element;
	for (const c of element.children) {
		const hit = find(c, match);
		if (hit) return hit;
	}
	return undefined;
}

/** Milliseconds since the epoch of an xsd:dateTime with offset, or null when it has none or is invalid. */
export function parseInstant(value: string | undefined): number | null {
	if (value === undefined) return null;
	const v = value.trim();
	if (!/(Z|[+-][0-9]{2}:[0-9]{2})$/.test(v)) return null;
	const t = Date.parse(v.replace(/T24:00:00(\.0+)?/, "T23:59:59.999"));
	return Number.isNaN(t) ? null : t;
}
