import { NS_EPCIS_1, NS_EPCIS_2, NS_EPCIS_QUERY_1, NS_EPCIS_QUERY_2 } from "./namespaces.ts";
import type { EpcisInput, EpcisLimits, EpcisRootName, EpcisVersion } from "./types.ts";
import { toTextChunks } from "./xml/text-chunks.ts";
import { type StartTag, XmlScanner } from "./xml/xml-scanner.ts";
import { XML_CODES, XmlSyntaxError } from "./xml/xml-syntax-error.ts";
import { parsePiece, type XmlElement } from "./xml/xml-tree.ts";

/** An event element found in the document, with its 0-based index and path. */
export interface LocatedEvent {
	element: XmlElement;
	index: number;
	path: string;
}

/**
 * What a pass over an EPCIS document yields, in document order: the root, the streamed
 * envelope (open/text/close), and every other element whole (`element`), with the events
 * it is or contains. Events are the children of EventList (and, in 1.2, the
 * TransformationEvent inside EventList/extension).
 */
export type DocumentItem =
	| { kind: "root"; version: EpcisVersion | null; root: EpcisRootName | null; tag: StartTag }
	| { kind: "open"; tag: StartTag; path: string; eventList: boolean }
	| { kind: "text"; line: number; column: number; cdata: boolean }
	| { kind: "close"; line: number; column: number }
	| { kind: "element"; element: XmlElement; path: string; parent: string; events: LocatedEvent[] };

const EVENT_TYPES = new Set([
	"ObjectEvent",
	"AggregationEvent",
	"TransformationEvent",
	"TransactionEvent",
	"AssociationEvent",
	"QuantityEvent",
]);

export function rootOf(ns: string | null, local: string): { version: EpcisVersion; root: EpcisRootName } | null {
	if (local === "EPCISDocument") {
		if (ns === NS_EPCIS_1) return { version: "1.2", root: "EPCISDocument" };
		if (ns === NS_EPCIS_2) return { version: "2.0", root: "EPCISDocument" };
	}
	if (local === "EPCISQueryDocument") {
		if (ns === NS_EPCIS_QUERY_1) return { version: "1.2", root: "EPCISQueryDocument" };
		if (ns === NS_EPCIS_QUERY_2) return { version: "2.0", root: "EPCISQueryDocument" };
	}
	return null;
}

/** The streamed path from the root to EventList, per root element (EPCIS 1.2 §9.5, §11.2; 2.0 §9.5, §12.2). */
function isEnvelope(parents: readonly StartTag[], tag: StartTag): boolean {
	const depth = parents.length;
	if (depth === 0) return true;
	const root = parents[0]!;
	const query = root.local === "EPCISQueryDocument";
	if (!query && root.local !== "EPCISDocument") return false;
	if (depth === 1) return tag.local === "EPCISBody" && tag.ns === null;
	if (!query) return depth === 2 && tag.local === "EventList" && tag.ns === null;
	if (depth === 2) return tag.local === "QueryResults" && tag.ns === root.ns;
	if (depth === 3) return tag.local === "resultsBody" && tag.ns === null;
	return depth === 4 && tag.local === "EventList" && tag.ns === null;
}

/**
 * Reads an EPCIS XML document in one streaming pass. Throws {@link XmlSyntaxError} for
 * input that is not well-formed, hostile or over a limit.
 */
export async function* readDocument(input: EpcisInput, limits: EpcisLimits): AsyncGenerator<DocumentItem> {
	const scanner = new XmlScanner(toTextChunks(input), limits, isEnvelope);
	const paths: string[] = [];
	const names: StartTag[] = [];
	const counters: Map<string, number>[] = [];
	let eventIndex = 0;
	/** XPath-like: `name[k]` for elements cut out whole, `[k]` only past the first for the envelope. */
	const step = (parent: number, qname: string, indexed: boolean): string => {
		const counter = counters[parent]!;
		const k = (counter.get(qname) ?? 0) + 1;
		counter.set(qname, k);
		return indexed || k > 1 ? `${paths[parent]}/${qname}[${k}]` : `${paths[parent]}/${qname}`;
	};
	for await (const item of scanner.scan()) {
		if (item.kind === "open") {
			const depth = item.depth;
			const path = depth === 0 ? `/${item.tag.qname}` : step(depth - 1, item.tag.qname, false);
			paths[depth] = path;
			names[depth] = item.tag;
			counters[depth] = new Map();
			if (depth === 0) {
				const found = rootOf(item.tag.ns, item.tag.local);
				yield { kind: "root", version: found?.version ?? null, root: found?.root ?? null, tag: item.tag };
			}
			const eventList = item.tag.local === "EventList" && item.tag.ns === null && depth > 0;
			yield { kind: "open", tag: item.tag, path, eventList };
		} else if (item.kind === "close") {
			yield { kind: "close", line: item.line, column: item.column };
		} else if (item.kind === "text") {
			yield { kind: "text", line: item.line, column: item.column, cdata: item.cdata };
		} else {
			const element = parsePiece(item.xml, item.tags, limits.maxDepth);
			const parent = item.depth - 1;
			const parentTag = names[parent]!;
			const path = step(parent, element.qname, true);
			const inEventList = parentTag.local === "EventList" && parentTag.ns === null && parent > 0;
			const events: LocatedEvent[] = [];
			if (inEventList && element.ns === null) {
				if (EVENT_TYPES.has(element.local)) events.push({ element, index: eventIndex++, path });
				else if (element.local === "extension") {
					element.children.forEach((child, k) => {
						if (child.ns === null && child.local === "TransformationEvent") {
							events.push({ element: child, index: eventIndex++, path: `${path}/${child.qname}[${k + 1}]` });
						}
					});
				}
			}
			if (eventIndex > limits.maxEvents) {
				throw new XmlSyntaxError(
					XML_CODES.limit,
					`more than maxEvents (${limits.maxEvents}) events`,
					element.line,
					element.column,
				);
			}
			yield { kind: "element", element, path, parent: paths[parent]!, events };
		}
	}
}
