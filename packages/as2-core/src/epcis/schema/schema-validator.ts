import { NS_XSI } from "../namespaces.ts";
import type { XmlAttribute } from "../xml/xml-scanner.ts";
import { isWhitespace } from "../xml/xml-text.ts";
import type { XmlElement } from "../xml/xml-tree.ts";
import {
	type CompiledModel,
	type ComplexType,
	compileModel,
	type ElementParticle,
	type Leaf,
	ModelRun,
} from "./content-model.ts";
import type { EpcisSchema } from "./epcis-schema.ts";
import { checkSimpleValue, type SimpleType } from "./simple-types.ts";

export interface SchemaIssue {
	code: string;
	message: string;
	path: string;
	line: number;
	column: number;
}

/** The element-level facts the validator needs, for shallow (streamed) and parsed elements alike. */
interface Located {
	qname: string;
	ns: string | null;
	local: string;
	attributes: XmlAttribute[];
	line: number;
	column: number;
}

interface Frame {
	type: ComplexType | null;
	run: ModelRun | null;
	path: string;
	elementOnly: boolean;
	reported: boolean;
}

const SIMPLE_TYPES = new Set<string>([
	"string",
	"anyURI",
	"decimal",
	"int",
	"integer",
	"dateTime",
	"DateTimeStamp",
	"boolean",
	"double",
	"hexBinary",
	"ActionType",
	"TypeOfServiceTransaction",
	"EPCISCaptureErrorBehaviourType",
]);

/**
 * Validates elements against the declarative EPCIS content models. The envelope arrives as a
 * stream (open / text / close) and events arrive whole; both step the same automata, so a
 * 50 MB document is checked with one event in memory.
 */
export class SchemaValidator {
	private readonly frames: Frame[] = [];
	private readonly compiled = new Map<ComplexType, CompiledModel>();

	constructor(
		private readonly schema: EpcisSchema,
		private readonly report: (issue: SchemaIssue) => void,
	) {}

	/** A streamed element opens: the root, or a child of the current streamed element. */
	open(tag: Located, path: string): void {
		const particle = this.frames.length === 0 ? this.rootParticle(tag, path) : this.stepParent(tag, path);
		if (!particle) {
			this.frames.push({ type: null, run: null, path, elementOnly: false, reported: true });
			return;
		}
		const type = this.complexType(particle.type);
		this.checkAttributes(tag, particle, type, path);
		const run = type?.content ? new ModelRun(this.model(type)) : null;
		this.frames.push({ type, run, path, elementOnly: !!type && !type.simple && !type.mixed, reported: false });
	}

	/** EPCISQueryDocument: validate the events of an EventList without the query envelope. */
	openEventList(path: string): void {
		const type = this.schema.types.EventListType!;
		this.frames.push({ type, run: new ModelRun(this.model(type)), path, elementOnly: true, reported: false });
	}

	closeIfEventList(): void {
		if (this.frames.length > 0) this.frames.pop();
	}

	text(line: number, column: number, cdata: boolean): void {
		const frame = this.frames.at(-1);
		if (!frame?.elementOnly) return;
		this.issue(
			"SCHEMA_TEXT_NOT_ALLOWED",
			cdata
				? "CDATA is not allowed in element-only content"
				: "character content other than white space is not allowed here",
			frame.path,
			line,
			column,
		);
	}

	close(line: number, column: number): void {
		const frame = this.frames.pop();
		if (frame?.run && !frame.reported && !frame.run.accepts()) {
			this.issue(
				"SCHEMA_MISSING_ELEMENT",
				`missing child element; expected ${frame.run.expected().join(" | ")}`,
				frame.path,
				line,
				column,
			);
		}
	}

	/** A whole element, child of the current streamed element. */
	element(element: XmlElement, path: string): void {
		const lazy = () => path;
		if (this.frames.length === 0) {
			const particle = this.rootParticle(element, path);
			if (particle) this.validate(element, particle, lazy);
			return;
		}
		const leaf = this.stepLeaf(element, path);
		if (leaf === null) return;
		if (leaf.kind === "any") this.lax(element, lazy);
		else this.validate(element, leaf, lazy);
	}

	private rootParticle(tag: Located, path: string): ElementParticle | null {
		const decl = this.schema.globals.get(`{${tag.ns ?? ""}}${tag.local}`);
		if (!decl || tag.ns !== this.schema.targetNamespace || tag.local !== "EPCISDocument") {
			this.issue(
				"SCHEMA_UNKNOWN_ROOT",
				`root element {${tag.ns ?? ""}}${tag.local} is not an EPCISDocument of EPCIS ${this.schema.version}`,
				path,
				tag.line,
				tag.column,
			);
			return null;
		}
		return decl;
	}

	private stepParent(tag: Located, path: string): ElementParticle | null {
		const leaf = this.stepLeaf(tag, path);
		return leaf && leaf.kind === "element" ? leaf : null;
	}

	private stepLeaf(tag: Located, path: string): Leaf | null {
		const frame = this.frames.at(-1)!;
		if (frame.reported) return null;
		if (!frame.run) {
			if (frame.type?.mixed) return { kind: "any", namespace: "##other", min: 0, max: 1 };
			frame.reported = true;
			this.issue(
				"SCHEMA_UNEXPECTED_ELEMENT",
				`element ${tag.qname} not allowed: this element has no child elements`,
				path,
				tag.line,
				tag.column,
			);
			return null;
		}
		const leaf = frame.run.step((l) => this.matches(l, tag));
		if (leaf === null) {
			frame.reported = true;
			const expected = frame.run.expected();
			this.issue(
				"SCHEMA_UNEXPECTED_ELEMENT",
				`element ${describe(tag)} not expected here; expected ${expected.length ? expected.join(" | ") : "no more elements"}`,
				path,
				tag.line,
				tag.column,
			);
		}
		return leaf;
	}

	private matches(leaf: Leaf, tag: Located): boolean {
		if (leaf.kind === "element") return leaf.name === tag.local && leaf.ns === tag.ns;
		if (leaf.namespace === "##local") return tag.ns === null;
		return tag.ns !== null && tag.ns !== this.schema.targetNamespace;
	}

	/** Strict validation of a parsed element against its declaration. */
	private validate(element: XmlElement, decl: ElementParticle, pathOf: () => string): void {
		if (decl.abstract) {
			this.issue(
				"SCHEMA_ABSTRACT_ELEMENT",
				`element ${element.qname} is abstract`,
				pathOf,
				element.line,
				element.column,
			);
			return;
		}
		const type = this.complexType(decl.type);
		const nilled = this.checkAttributes(element, decl, type, pathOf);
		if (nilled) {
			if (element.children.length > 0 || element.text !== "") {
				this.issue(
					"SCHEMA_NILLED_NOT_EMPTY",
					`element ${element.qname} is nilled but has content`,
					pathOf,
					element.line,
					element.column,
				);
			}
			return;
		}
		const simple: SimpleType | undefined = type ? type.simple : (decl.type as SimpleType);
		if (simple !== undefined) {
			if (element.children.length > 0) {
				this.issue(
					"SCHEMA_UNEXPECTED_ELEMENT",
					`element ${element.qname} has simple content: no child elements allowed`,
					pathOf,
					element.children[0]!.line,
					element.children[0]!.column,
				);
				return;
			}
			const problem = checkSimpleValue(simple, element.text);
			if (problem)
				this.issue("SCHEMA_INVALID_VALUE", `${element.qname}: ${problem}`, pathOf, element.line, element.column);
			return;
		}
		if (!type || type.mixed) {
			this.laxChildren(element, pathOf);
			return;
		}
		if (element.cdata || !isWhitespace(element.text)) {
			this.issue(
				"SCHEMA_TEXT_NOT_ALLOWED",
				`${element.qname}: character content other than white space is not allowed`,
				pathOf,
				element.line,
				element.column,
			);
		}
		if (!type.content) {
			if (element.children.length > 0) {
				this.issue(
					"SCHEMA_UNEXPECTED_ELEMENT",
					`element ${element.qname} must be empty`,
					pathOf,
					element.line,
					element.column,
				);
			}
			return;
		}
		const run = new ModelRun(this.model(type));
		const childPath = lazyChildPaths(element, pathOf);
		for (let i = 0; i < element.children.length; i++) {
			const child = element.children[i]!;
			const pathOfChild = () => childPath(i);
			const leaf = run.step((l) => this.matches(l, child));
			if (leaf === null) {
				const expected = run.expected();
				this.issue(
					"SCHEMA_UNEXPECTED_ELEMENT",
					`element ${describe(child)} not expected here; expected ${expected.length ? expected.join(" | ") : "no more elements"}`,
					pathOfChild,
					child.line,
					child.column,
				);
				return;
			}
			if (leaf.kind === "any") this.lax(child, pathOfChild);
			else this.validate(child, leaf, pathOfChild);
		}
		if (!run.accepts()) {
			this.issue(
				"SCHEMA_MISSING_ELEMENT",
				`${element.qname}: missing child element; expected ${run.expected().join(" | ")}`,
				pathOf,
				element.line,
				element.column,
			);
		}
	}

	/** processContents="lax": validate what has a global declaration, walk the rest. */
	private lax(element: XmlElement, pathOf: () => string): void {
		const decl = this.schema.globals.get(`{${element.ns ?? ""}}${element.local}`);
		if (decl) this.validate(element, decl, pathOf);
		else this.laxChildren(element, pathOf);
	}

	private laxChildren(element: XmlElement, pathOf: () => string): void {
		const childPath = lazyChildPaths(element, pathOf);
		element.children.forEach((child, i) => {
			this.lax(child, () => childPath(i));
		});
	}

	/** Checks attributes; returns true when xsi:nil="true" (allowed on a nillable element). */
	private checkAttributes(
		tag: Located,
		decl: ElementParticle,
		type: ComplexType | null,
		path: string | (() => string),
	): boolean {
		const declared = type?.attributes ?? {};
		let nilled = false;
		for (const attr of tag.attributes) {
			if (attr.ns === NS_XSI) {
				if (attr.local === "schemaLocation" || attr.local === "noNamespaceSchemaLocation") continue;
				if (attr.local === "nil") {
					if (!decl.nillable)
						this.issue("SCHEMA_NOT_NILLABLE", `element ${tag.qname} is not nillable`, path, tag.line, tag.column);
					else {
						const v = attr.value.trim();
						if (v === "true" || v === "1") nilled = true;
						else if (v !== "false" && v !== "0")
							this.issue(
								"SCHEMA_INVALID_VALUE",
								`xsi:nil: '${attr.value}' is not a boolean`,
								path,
								tag.line,
								tag.column,
							);
					}
					continue;
				}
				if (attr.local === "type") {
					const local = attr.value.trim().replace(/^[^:]*:/, "");
					if (local !== decl.type) {
						this.issue(
							"SCHEMA_XSI_TYPE",
							`xsi:type ${attr.value} other than the declared type is not supported`,
							path,
							tag.line,
							tag.column,
						);
					}
					continue;
				}
			}
			const use = attr.ns === null ? declared[attr.local] : undefined;
			if (use) {
				const problem = checkSimpleValue(use.type, attr.value);
				if (problem)
					this.issue("SCHEMA_INVALID_VALUE", `attribute ${attr.qname}: ${problem}`, path, tag.line, tag.column);
			} else if (!type?.anyAttribute) {
				this.issue(
					"SCHEMA_ATTRIBUTE_NOT_ALLOWED",
					`attribute ${attr.qname} is not allowed on ${tag.qname}`,
					path,
					tag.line,
					tag.column,
				);
			}
		}
		for (const [name, use] of Object.entries(declared)) {
			if (use.required && !tag.attributes.some((a) => a.ns === null && a.local === name)) {
				this.issue(
					"SCHEMA_MISSING_ATTRIBUTE",
					`attribute ${name} is required on ${tag.qname}`,
					path,
					tag.line,
					tag.column,
				);
			}
		}
		return nilled;
	}

	private complexType(name: string): ComplexType | null {
		if (SIMPLE_TYPES.has(name)) return null;
		return this.schema.types[name] ?? null;
	}

	private model(type: ComplexType): CompiledModel {
		let model = this.compiled.get(type);
		if (!model) {
			model = compileModel(type.content!);
			this.compiled.set(type, model);
		}
		return model;
	}

	private issue(code: string, message: string, path: string | (() => string), line: number, column: number): void {
		this.report({ code, message, path: typeof path === "string" ? path : path(), line, column });
	}
}

function describe(tag: Located): string {
	return tag.ns ? `{${tag.ns}}${tag.local}` : tag.local;
}

/** Child paths computed on first need: most elements never have an issue. */
function lazyChildPaths(element: XmlElement, pathOf: () => string): (i: number) => string {
	let paths: string[] | undefined;
	return (i) => {
		paths ??= childPaths(element, pathOf());
		return paths[i]!;
	};
}

/** XPath-like child paths: `name[k]` where a name repeats among siblings. */
export function childPaths(element: { children: { qname: string }[] }, path: string): string[] {
	const totals = new Map<string, number>();
	for (const c of element.children) totals.set(c.qname, (totals.get(c.qname) ?? 0) + 1);
	const seen = new Map<string, number>();
	return element.children.map((c) => {
		const k = (seen.get(c.qname) ?? 0) + 1;
		seen.set(c.qname, k);
		return totals.get(c.qname)! > 1 ? `${path}/${c.qname}[${k}]` : `${path}/${c.qname}`;
	});
}
