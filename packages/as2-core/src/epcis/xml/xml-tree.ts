import { XMLParser } from "fast-xml-parser";
import type { StartTag, XmlAttribute } from "./xml-scanner.ts";
import { XML_CODES, XmlSyntaxError } from "./xml-syntax-error.ts";
import { decodeReferences } from "./xml-text.ts";

/** An element of a parsed piece: names resolved, text decoded, position of its start tag. */
export interface XmlElement {
	qname: string;
	ns: string | null;
	local: string;
	attributes: XmlAttribute[];
	children: XmlElement[];
	/** The element's own character data (text and CDATA), concatenated. */
	text: string;
	/** Whether a CDATA section is among its children (character content even when blank). */
	cdata: boolean;
	line: number;
	column: number;
}

/**
 * Tag names go through an idempotent prefix: fast-xml-parser refuses `__proto__` and friends
 * as names (legal XML), and applies `transformTagName` twice to self-closing tags.
 */
const MARK = "\u00B7";
const unmark = (name: string): string => (name.startsWith(MARK) ? name.slice(1) : name);

type OrderedNode = Record<string, unknown>;

let parser: XMLParser | undefined;
let parserDepth = 0;

function getParser(maxDepth: number): XMLParser {
	if (!parser || parserDepth !== maxDepth) {
		parser = new XMLParser({
			preserveOrder: true,
			ignoreAttributes: true,
			processEntities: false,
			htmlEntities: false,
			trimValues: false,
			parseTagValue: false,
			cdataPropName: "#cdata",
			ignoreDeclaration: true,
			ignorePiTags: true,
			maxNestedTags: maxDepth + 1,
			jPath: false,
			transformTagName: (name) => (name.startsWith(MARK) ? name : MARK + name),
		});
		parserDepth = maxDepth;
	}
	return parser;
}

/**
 * Parses one piece cut out by the scanner with fast-xml-parser (entities off: the scanner
 * has checked every reference, and we decode the predefined ones ourselves) and joins its
 * elements, in document order, with the scanner's resolved start tags.
 */
export function parsePiece(xml: string, tags: readonly StartTag[], maxDepth: number): XmlElement {
	let ordered: OrderedNode[];
	try {
		ordered = getParser(maxDepth).parse(xml) as OrderedNode[];
	} catch (error) {
		throw new XmlSyntaxError(XML_CODES.notWellFormed, (error as Error).message, tags[0]?.line, tags[0]?.column);
	}
	let next = 0;
	const build = (node: OrderedNode): XmlElement => {
		const key = Object.keys(node).find((k) => k !== ":@")!;
		const tag = tags[next++];
		if (!tag || tag.qname !== unmark(key)) {
			throw new XmlSyntaxError(
				XML_CODES.notWellFormed,
				`cannot parse element <${unmark(key)}>`,
				tag?.line,
				tag?.column,
			);
		}
		const element: XmlElement = {
			qname: tag.qname,
			ns: tag.ns,
			local: tag.local,
			attributes: tag.attributes,
			children: [],
			text: "",
			cdata: false,
			line: tag.line,
			column: tag.column,
		};
		let text = "";
		for (const child of node[key] as OrderedNode[]) {
			if ("#text" in child) text += decodeReferences(String(child["#text"]));
			else if ("#cdata" in child) {
				element.cdata = true;
				for (const part of child["#cdata"] as OrderedNode[]) text += String(part["#text"] ?? "");
			} else element.children.push(build(child));
		}
		element.text = text;
		return element;
	};
	const roots = ordered.filter((n) => !("#text" in n));
	if (roots.length !== 1)
		throw new XmlSyntaxError(XML_CODES.notWellFormed, "cannot parse event", tags[0]?.line, tags[0]?.column);
	const root = build(roots[0]!);
	if (next !== tags.length)
		throw new XmlSyntaxError(XML_CODES.notWellFormed, "cannot parse event", tags[0]?.line, tags[0]?.column);
	return root;
}
