/**
 * A document that is not well-formed XML, is hostile (DOCTYPE, entities) or breaks a limit.
 * Internal to epcis/: validation turns it into a "parse" issue, readEpcisEvents into an As2Error.
 */
export class XmlSyntaxError extends Error {
	readonly code: string;
	readonly line: number | undefined;
	readonly column: number | undefined;

	constructor(code: string, message: string, line?: number, column?: number, cause?: unknown) {
		super(message, cause === undefined ? undefined : { cause });
		this.name = "XmlSyntaxError";
		this.code = code;
		this.line = line;
		this.column = column;
	}
}

export const XML_CODES = {
	notWellFormed: "XML_NOT_WELL_FORMED",
	doctype: "XML_DOCTYPE_FORBIDDEN",
	entity: "XML_UNDEFINED_ENTITY",
	namespace: "XML_NAMESPACE_ERROR",
	encoding: "XML_ENCODING_UNSUPPORTED",
	limit: "XML_LIMIT_EXCEEDED",
} as const;
