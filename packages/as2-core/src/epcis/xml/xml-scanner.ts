import { NS_XML, NS_XMLNS } from "../namespaces.ts";
import type { EpcisLimits } from "../types.ts";
import { XML_CODES, XmlSyntaxError } from "./xml-syntax-error.ts";
import { bareDoctypeName, checkCharData, isWhitespace, normalizeAttributeValue, QNAME } from "./xml-text.ts";

/** A namespace-resolved attribute; `ns` is null for an unprefixed one (Namespaces in XML §6.2). */
export interface XmlAttribute {
	qname: string;
	ns: string | null;
	local: string;
	value: string;
}

/** One start tag as the scanner saw it: resolved names and its 1-based position. */
export interface StartTag {
	qname: string;
	ns: string | null;
	local: string;
	attributes: XmlAttribute[];
	line: number;
	column: number;
}

/**
 * What the scanner reports. Elements the caller calls shallow (the document envelope) come
 * as open/close/text items; every other element arrives whole, as a `piece`: its source
 * text, cut out of the stream, with the start tags inside it in document order.
 */
export type ScanItem =
	| { kind: "open"; tag: StartTag; depth: number }
	| { kind: "close"; depth: number; line: number; column: number }
	| { kind: "text"; text: string; cdata: boolean; line: number; column: number }
	| { kind: "piece"; xml: string; tags: StartTag[]; depth: number };

export type IsShallow = (parents: readonly StartTag[], tag: StartTag) => boolean;

interface Frame {
	qname: string;
	decls: Map<string, string> | null;
}

const PREFIX_XML = new Map([["xml", NS_XML]]);

/**
 * A chunked XML 1.0 tokenizer, safe by construction: a DOCTYPE that declares anything (and
 * with it every entity declaration, external entity and entity expansion) is refused outright
 * — only the bare `<!DOCTYPE name>` is skipped —, every buffer has a cap from
 * {@link EpcisLimits}, and only the current event is held in memory. It checks
 * well-formedness (tag matching, attribute syntax and uniqueness, references, characters,
 * namespace bindings) so that a piece handed on is well-formed on its own.
 */
export class XmlScanner {
	private buf = "";
	private base = 0;
	private pos = 0;
	private eof = false;
	private line = 1;
	private lineStart = 0;
	private counted = 0;
	private readonly frames: Frame[] = [];
	private readonly shallow: StartTag[] = [];
	private pieceStart = -1;
	private pieceDepth = -1;
	private pieceTags: StartTag[] = [];
	private rootSeen = false;
	private rootClosed = false;
	private doctypeSeen = false;
	private readonly maxTag: number;

	constructor(
		private readonly source: AsyncIterable<string>,
		private readonly limits: EpcisLimits,
		private readonly isShallow: IsShallow,
	) {
		this.maxTag = Math.min(limits.maxEventLength, limits.maxAttributes * (limits.maxAttributeLength + 512) + 4096);
	}

	async *scan(): AsyncGenerator<ScanItem> {
		const iterator = this.source[Symbol.asyncIterator]();
		const more = async (): Promise<boolean> => {
			if (this.eof) return false;
			const next = await iterator.next();
			if (next.done) {
				this.eof = true;
				return false;
			}
			const keep = (this.pieceStart >= 0 ? this.pieceStart : this.base + this.pos) - this.base;
			this.count(this.base + this.pos);
			if (keep > 0) {
				this.buf = this.buf.slice(keep);
				this.base += keep;
				this.pos -= keep;
			}
			this.buf += next.value;
			if (this.pieceStart >= 0 && this.base + this.pos - this.pieceStart > this.limits.maxEventLength) {
				this.limit("event longer than maxEventLength");
			}
			return true;
		};
		try {
			for (;;) {
				if (this.pos >= this.buf.length && !(await more())) break;
				const item = this.step();
				if (item === NEED_MORE) {
					// At the end of input no step answers NEED_MORE: each fails instead.
					await more();
					continue;
				}
				if (item !== null) yield item;
				const close = this.takePendingClose();
				if (close) yield close;
			}
			if (!this.rootSeen) this.fail(XML_CODES.notWellFormed, "no root element");
			if (this.frames.length > 0) {
				this.fail(XML_CODES.notWellFormed, `unexpected end of document: <${this.frames.at(-1)!.qname}> is not closed`);
			}
		} finally {
			await iterator.return?.();
		}
	}

	/** Consumes one token; returns an item, null (nothing to report) or NEED_MORE. */
	private step(): ScanItem | null | typeof NEED_MORE {
		const { buf, pos } = this;
		if (buf.charCodeAt(pos) !== 0x3c /* < */) return this.text();
		if (buf.length - pos < 9 && !this.eof) return NEED_MORE;
		const c1 = buf.charCodeAt(pos + 1);
		if (c1 === 0x3f /* ? */) return this.processingInstruction();
		if (c1 === 0x21 /* ! */) {
			if (buf.startsWith("<!--", pos)) return this.comment();
			if (buf.startsWith("<![CDATA[", pos)) return this.cdata();
			if (buf.startsWith("<!DOCTYPE", pos)) return this.doctype();
			if (/^<!(DOCTYPE|ENTITY)/i.test(buf.slice(pos, pos + 9))) {
				this.fail(XML_CODES.doctype, "DOCTYPE and entity declarations are not accepted (XXE, entity expansion)");
			}
			this.fail(XML_CODES.notWellFormed, "markup declaration not allowed here");
		}
		if (c1 === 0x2f /* / */) return this.endTag();
		return this.startTag();
	}

	private text(): ScanItem | null | typeof NEED_MORE {
		const end = this.buf.indexOf("<", this.pos);
		if (end < 0 && !this.eof) {
			if (this.buf.length - this.pos > this.limits.maxTextLength) this.limit("text longer than maxTextLength");
			return NEED_MORE;
		}
		const stop = end < 0 ? this.buf.length : end;
		const text = this.buf.slice(this.pos, stop);
		if (text.length > this.limits.maxTextLength) this.limit("text longer than maxTextLength");
		const [line, column] = this.here();
		this.pos = stop;
		if (this.frames.length === 0) {
			if (!isWhitespace(text)) this.fail(XML_CODES.notWellFormed, "text outside the root element", line, column);
			return null;
		}
		checkCharData(text, line, column);
		if (text.includes("]]>")) this.fail(XML_CODES.notWellFormed, "']]>' not allowed in text", line, column);
		if (this.pieceStart >= 0 || isWhitespace(text)) return null;
		return { kind: "text", text, cdata: false, line, column };
	}

	private delimited(open: string, close: string): string | typeof NEED_MORE {
		const end = this.buf.indexOf(close, this.pos + open.length);
		if (end < 0) {
			if (this.buf.length - this.pos > this.limits.maxTextLength)
				this.limit(`${open} section longer than maxTextLength`);
			if (!this.eof) return NEED_MORE;
			this.fail(XML_CODES.notWellFormed, `unterminated ${open}`);
		}
		const body = this.buf.slice(this.pos + open.length, end);
		if (body.length > this.limits.maxTextLength) this.limit(`${open} section longer than maxTextLength`);
		this.pos = end + close.length;
		return body;
	}

	private comment(): null | typeof NEED_MORE {
		const [line, column] = this.here();
		const body = this.delimited("<!--", "-->");
		if (body === NEED_MORE) return NEED_MORE;
		if (body.includes("--") || body.endsWith("-"))
			this.fail(XML_CODES.notWellFormed, "'--' inside a comment", line, column);
		checkCharData(body.replaceAll("&", ""), line, column);
		return null;
	}

	private cdata(): ScanItem | null | typeof NEED_MORE {
		const [line, column] = this.here();
		if (this.frames.length === 0) this.fail(XML_CODES.notWellFormed, "CDATA outside the root element", line, column);
		const body = this.delimited("<![CDATA[", "]]>");
		if (body === NEED_MORE) return NEED_MORE;
		checkCharData(body.replaceAll("&", ""), line, column);
		if (this.pieceStart >= 0) return null;
		return { kind: "text", text: body, cdata: true, line, column };
	}

	/**
	 * XML 1.0 §2.8 doctypedecl, accepted only in its bare form `<!DOCTYPE name>`: no external
	 * identifier, no internal subset, so it declares nothing and skipping it is safe. GS1's own
	 * EPCIS examples (gs1/EPCIS `XML/WithFullCombinationOfFields/*.xml`) begin with
	 * `<!DOCTYPE project>`. Anything more — SYSTEM/PUBLIC, `[…]`, a comment or PI inside, a
	 * second DOCTYPE, one after the root — is refused: that is where XXE and entity expansion
	 * live. The search for its end is bounded by MAX_BARE_DOCTYPE, so the reader stays linear.
	 */
	private doctype(): null | typeof NEED_MORE {
		const [line, column] = this.here();
		const window = this.buf.slice(this.pos, this.pos + MAX_BARE_DOCTYPE + 1);
		const end = window.indexOf(">");
		if (end < 0 && window.length <= MAX_BARE_DOCTYPE && !this.eof) return NEED_MORE;
		const name = end < 0 ? null : bareDoctypeName(window.slice(0, end + 1));
		if (name === null || this.doctypeSeen || this.rootSeen) {
			this.fail(
				XML_CODES.doctype,
				"only a bare <!DOCTYPE name> is accepted: DOCTYPEs with an external identifier, an internal subset or entity declarations are not (XXE, entity expansion)",
				line,
				column,
			);
		}
		this.doctypeSeen = true;
		this.pos += end + 1;
		return null;
	}

	private processingInstruction(): null | typeof NEED_MORE {
		const start = this.base + this.pos;
		const [line, column] = this.here();
		const body = this.delimited("<?", "?>");
		if (body === NEED_MORE) return NEED_MORE;
		const target = /^[^\s?]+/.exec(body)?.[0] ?? "";
		if (target.toLowerCase() === "xml") {
			if (start !== 0 || target !== "xml") {
				this.fail(XML_CODES.notWellFormed, "XML declaration allowed only at the start of the document", line, column);
			}
			const version = /\bversion\s*=\s*["']([^"']*)["']/.exec(body)?.[1];
			if (version === undefined || !/^1\.[0-9]+$/.test(version)) {
				this.fail(XML_CODES.notWellFormed, "XML declaration without a valid version", line, column);
			}
			const encoding = /\bencoding\s*=\s*["']([^"']*)["']/.exec(body)?.[1];
			if (encoding !== undefined && !/^(utf-?8|us-ascii|ascii)$/i.test(encoding)) {
				this.fail(XML_CODES.encoding, `encoding ${encoding} is not supported: send UTF-8`, line, column);
			}
		} else if (!QNAME.test(target) || target.includes(":")) {
			this.fail(XML_CODES.notWellFormed, "processing instruction without a valid target", line, column);
		}
		return null;
	}

	private endTag(): ScanItem | null | typeof NEED_MORE {
		const end = this.buf.indexOf(">", this.pos);
		if (end < 0) {
			if (this.buf.length - this.pos > 4096) this.fail(XML_CODES.notWellFormed, "end tag too long");
			return this.eof ? this.fail(XML_CODES.notWellFormed, "unterminated end tag") : NEED_MORE;
		}
		const [line, column] = this.here();
		const name = this.buf.slice(this.pos + 2, end).trimEnd();
		this.pos = end + 1;
		const frame = this.frames.pop();
		if (!frame) this.fail(XML_CODES.notWellFormed, `end tag </${name}> without a start tag`, line, column);
		if (frame.qname !== name) {
			this.fail(XML_CODES.notWellFormed, `end tag </${name}> does not match <${frame.qname}>`, line, column);
		}
		return this.closed(line, column);
	}

	private closed(line: number, column: number): ScanItem | null {
		const depth = this.frames.length;
		if (depth === 0) this.rootClosed = true;
		if (this.pieceStart >= 0) {
			if (depth > this.pieceDepth) return null;
			const xml = this.buf.slice(this.pieceStart - this.base, this.pos);
			const item: ScanItem = { kind: "piece", xml, tags: this.pieceTags, depth };
			this.pieceStart = -1;
			this.pieceTags = [];
			return item;
		}
		this.shallow.pop();
		return { kind: "close", depth, line, column };
	}

	private startTag(): ScanItem | null | typeof NEED_MORE {
		const { buf, pos } = this;
		let i = pos + 1;
		let quote = 0;
		let quoteStart = 0;
		let end = -1;
		while (i < buf.length) {
			if (quote !== 0) {
				const close = buf.indexOf(quote === 0x22 ? '"' : "'", i);
				if (close < 0) {
					i = buf.length;
					break;
				}
				if (close - quoteStart > this.limits.maxAttributeLength)
					this.limit("attribute value longer than maxAttributeLength");
				quote = 0;
				i = close + 1;
				continue;
			}
			const c = buf.charCodeAt(i);
			if (c === 0x3e /* > */) {
				end = i;
				break;
			}
			if (c === 0x22 || c === 0x27) {
				quote = c;
				quoteStart = i + 1;
			} else if (c === 0x3c) {
				this.fail(XML_CODES.notWellFormed, "'<' inside a tag");
			}
			i++;
		}
		if (end < 0) {
			if (quote !== 0 && buf.length - quoteStart > this.limits.maxAttributeLength) {
				this.limit("attribute value longer than maxAttributeLength");
			}
			if (buf.length - pos > this.maxTag) this.limit("start tag too long for maxAttributes × maxAttributeLength");
			return this.eof ? this.fail(XML_CODES.notWellFormed, "unterminated start tag") : NEED_MORE;
		}
		const [line, column] = this.here();
		const selfClosing = buf.charCodeAt(end - 1) === 0x2f;
		const inner = buf.slice(pos + 1, selfClosing ? end - 1 : end);
		this.pos = end + 1;
		if (this.rootClosed) this.fail(XML_CODES.notWellFormed, "extra content after the root element", line, column);
		const tag = this.parseTag(inner, line, column);
		this.rootSeen = true;
		if (this.frames.length > this.limits.maxDepth)
			this.limit(`elements nested deeper than maxDepth (${this.limits.maxDepth})`, line, column);
		const depth = this.frames.length - 1;
		if (this.pieceStart < 0 && this.isShallow(this.shallow, tag)) {
			this.shallow.push(tag);
			const item: ScanItem = { kind: "open", tag, depth };
			if (selfClosing) {
				this.frames.pop();
				this.shallow.pop();
				this.pendingClose = [depth, line, column];
			}
			return item;
		}
		if (this.pieceStart < 0) {
			this.pieceStart = this.base + pos;
			this.pieceDepth = depth;
		}
		this.pieceTags.push(tag);
		if (this.base + this.pos - this.pieceStart > this.limits.maxEventLength) {
			this.limit("event longer than maxEventLength", line, column);
		}
		if (selfClosing) {
			this.frames.pop();
			return this.closed(line, column);
		}
		return null;
	}

	/** A self-closing shallow element reports open, then close on the next step. */
	private pendingClose: [number, number, number] | null = null;

	private takePendingClose(): ScanItem | null {
		if (!this.pendingClose) return null;
		const [depth, line, column] = this.pendingClose;
		this.pendingClose = null;
		if (depth === 0) this.rootClosed = true;
		return { kind: "close", depth, line, column };
	}

	private parseTag(inner: string, line: number, column: number): StartTag {
		const nameMatch = /^[^\s/>]+/.exec(inner);
		const qname = nameMatch?.[0] ?? "";
		if (!QNAME.test(qname))
			this.fail(XML_CODES.notWellFormed, `invalid element name '${qname.slice(0, 80)}'`, line, column);
		const raw: { qname: string; value: string }[] = [];
		const attr = /[ \t\n\r]+([^\s=/>]+)[ \t\n\r]*=[ \t\n\r]*(?:"([^"]*)"|'([^']*)')/y;
		attr.lastIndex = qname.length;
		let at = qname.length;
		let decls: Map<string, string> | null = null;
		for (let m = attr.exec(inner); m; m = attr.exec(inner)) {
			at = attr.lastIndex;
			const name = m[1]!;
			const value = m[2] ?? m[3] ?? "";
			if (raw.length >= this.limits.maxAttributes) this.limit("more attributes than maxAttributes", line, column);
			if (!QNAME.test(name))
				this.fail(XML_CODES.notWellFormed, `invalid attribute name '${name.slice(0, 80)}'`, line, column);
			if (value.includes("<")) this.fail(XML_CODES.notWellFormed, "'<' in an attribute value", line, column);
			checkCharData(value, line, column);
			for (const r of raw)
				if (r.qname === name) this.fail(XML_CODES.notWellFormed, `attribute ${name} repeated`, line, column);
			raw.push({ qname: name, value });
			if (name === "xmlns" || name.startsWith("xmlns:")) {
				const prefix = name === "xmlns" ? "" : name.slice(6);
				const uri = normalizeAttributeValue(value);
				if (prefix === "xmlns" || (prefix === "xml") !== (uri === NS_XML) || uri === NS_XMLNS) {
					this.fail(XML_CODES.namespace, `reserved namespace binding ${name}="${uri}"`, line, column);
				}
				if (prefix !== "" && uri === "")
					this.fail(XML_CODES.namespace, `prefix ${prefix} bound to the empty name`, line, column);
				decls ??= new Map();
				decls.set(prefix, uri);
			}
		}
		if (!/^[ \t\n\r]*$/.test(inner.slice(at))) {
			this.fail(XML_CODES.notWellFormed, `malformed attributes in <${qname}>`, line, column);
		}
		this.frames.push({ qname, decls });
		const [ns, local] = this.resolve(qname, true, line, column);
		const attributes: XmlAttribute[] = [];
		for (const r of raw) {
			if (r.qname === "xmlns" || r.qname.startsWith("xmlns:")) continue;
			const [ans, alocal] = this.resolve(r.qname, false, line, column);
			for (const a of attributes) {
				if (a.ns === ans && a.local === alocal)
					this.fail(XML_CODES.namespace, `attribute {${ans}}${alocal} repeated`, line, column);
			}
			attributes.push({ qname: r.qname, ns: ans, local: alocal, value: normalizeAttributeValue(r.value) });
		}
		return { qname, ns, local, attributes, line, column };
	}

	private resolve(qname: string, element: boolean, line: number, column: number): [string | null, string] {
		const colon = qname.indexOf(":");
		const prefix = colon < 0 ? "" : qname.slice(0, colon);
		const local = colon < 0 ? qname : qname.slice(colon + 1);
		if (prefix === "" && !element) return [null, local];
		const uri = this.lookup(prefix);
		if (uri === undefined) {
			if (prefix === "") return [null, local];
			this.fail(XML_CODES.namespace, `namespace prefix ${prefix} is not bound`, line, column);
		}
		return [uri === "" ? null : uri, local];
	}

	private lookup(prefix: string): string | undefined {
		for (let i = this.frames.length - 1; i >= 0; i--) {
			const uri = this.frames[i]!.decls?.get(prefix);
			if (uri !== undefined) return uri;
		}
		return PREFIX_XML.get(prefix);
	}

	/** Line and column of `pos`, counting newlines incrementally. */
	private here(): [number, number] {
		const abs = this.base + this.pos;
		this.count(abs);
		return [this.line, abs - this.lineStart + 1];
	}

	/** Absolute offset of the next newline at or after `counted`, or -1 when not searched yet. */
	private nextNewline = -1;
	/** Absolute offset up to which the buffer has been searched for a newline. */
	private searched = 0;

	private count(abs: number): void {
		if (abs <= this.counted) return;
		for (;;) {
			if (this.nextNewline < 0) {
				const from = Math.max(this.searched, this.counted);
				if (from >= this.base + this.buf.length) break;
				const nl = this.buf.indexOf("\n", from - this.base);
				if (nl < 0) {
					this.searched = this.base + this.buf.length;
					break;
				}
				this.nextNewline = this.base + nl;
				this.searched = this.nextNewline + 1;
			}
			if (this.nextNewline >= abs) break;
			this.line++;
			this.lineStart = this.nextNewline + 1;
			this.nextNewline = -1;
		}
		this.counted = abs;
	}

	private limit(message: string, line?: number, column?: number): never {
		this.fail(XML_CODES.limit, message, line, column);
	}

	private fail(code: string, message: string, line?: number, column?: number): never {
		if (line === undefined) [line, column] = this.here();
		throw new XmlSyntaxError(code, message, line, column);
	}
}

const NEED_MORE: unique symbol = Symbol("need more");
/** Longer than any bare DOCTYPE a real document carries; the bound on the search for its end. */
const MAX_BARE_DOCTYPE = 1024;
