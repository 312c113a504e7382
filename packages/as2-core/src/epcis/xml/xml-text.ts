import { XML_CODES, XmlSyntaxError } from "./xml-syntax-error.ts";

/** XML 1.0 §2.2 Char, as the negation: C0 controls other than TAB/LF/CR, U+FFFE/U+FFFF, lone surrogates. */
const NOT_CHAR =
	// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML forbids
	/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const REFERENCE = /&(?:(lt|gt|amp|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));/g;
const ANY_AMP = /&/g;
const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** NCName (Namespaces in XML §3), approximated to the Unicode ranges of XML 1.0 5th edition. */
const NAME_START =
	"A-Za-z_\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\uD800-\\uDBFF\\uDC00-\\uDFFF";
const NAME_CHAR = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
export const QNAME = new RegExp(`^[${NAME_START}][${NAME_CHAR}]*(?::[${NAME_START}][${NAME_CHAR}]*)?$`);

function isXmlChar(code: number): boolean {
	return (
		code === 0x9 ||
		code === 0xa ||
		code === 0xd ||
		(code >= 0x20 && code <= 0xd7ff) ||
		(code >= 0xe000 && code <= 0xfffd) ||
		(code >= 0x10000 && code <= 0x10ffff)
	);
}

/**
 * Checks character data (text or an attribute value) for characters XML forbids and for
 * references other than the five predefined entities and character references. Without a
 * DOCTYPE that declares one (we refuse those; a bare one declares nothing) any other entity
 * reference is undefined (XML 1.0 §4.1 WFC).
 */
export function checkCharData(text: string, line: number, column: number): void {
	if (NOT_CHAR.test(text)) {
		throw new XmlSyntaxError(XML_CODES.notWellFormed, "character not allowed in XML", line, column);
	}
	if (!text.includes("&")) return;
	ANY_AMP.lastIndex = 0;
	let amps = 0;
	while (ANY_AMP.exec(text)) amps++;
	let refs = 0;
	REFERENCE.lastIndex = 0;
	for (let m = REFERENCE.exec(text); m; m = REFERENCE.exec(text)) {
		refs++;
		const code = m[2] !== undefined ? Number.parseInt(m[2], 10) : m[3] !== undefined ? Number.parseInt(m[3], 16) : -1;
		if (m[1] === undefined && !isXmlChar(code)) {
			throw new XmlSyntaxError(
				XML_CODES.notWellFormed,
				`character reference ${m[0]} is not a legal character`,
				line,
				column,
			);
		}
	}
	if (refs !== amps) {
		const bad = /&(?!(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)([^;&\s]{0,40});?/.exec(text);
		throw new XmlSyntaxError(
			XML_CODES.entity,
			`undefined entity or stray '&' (${bad?.[0] ?? "&"}): only the predefined entities and character references are allowed`,
			line,
			column,
		);
	}
}

/** Replaces the predefined entities and character references; input was checked by checkCharData. */
export function decodeReferences(text: string): string {
	if (!text.includes("&")) return text;
	return text.replace(REFERENCE, (_, name: string | undefined, dec: string | undefined, hex: string | undefined) =>
		name !== undefined ? PREDEFINED[name]! : String.fromCodePoint(Number.parseInt(dec ?? hex!, dec ? 10 : 16)),
	);
}

/** Attribute-value normalization without a DTD (XML 1.0 §3.3.3): literal TAB/LF/CR become spaces, then references. */
export function normalizeAttributeValue(raw: string): string {
	return decodeReferences(raw.replace(/[\t\n\r]/g, " "));
}

/** `<!DOCTYPE` S Name S? `>` (XML 1.0 §2.8 without ExternalID or intSubset; S is §2.3's four characters). */
const BARE_DOCTYPE = /^<!DOCTYPE[ \t\r\n]+([^ \t\r\n>]+)[ \t\r\n]*>$/;

/**
 * The name of a bare document type declaration, `<!DOCTYPE project>` (the text up to and
 * including its first `>`), or null for any other: one with an external identifier or an
 * internal subset can declare entities, and a comment or PI inside makes it no bare one.
 */
export function bareDoctypeName(declaration: string): string | null {
	const name = BARE_DOCTYPE.exec(declaration)?.[1];
	return name !== undefined && QNAME.test(name) ? name : null;
}

export function isWhitespace(text: string): boolean {
	return /^[ \t\r\n]*$/.test(text);
}
