/**
 * XML Schema 1.0 Part 2 datatypes used by the EPCIS 1.2/2.0 and SBDH schemas, with the
 * lexical rules of libxml2 (`xmllint --schema`, our differential judge) where it is stricter
 * or laxer than the Recommendation; each such place says so.
 */
export type SimpleType =
	| "string"
	| "anyURI"
	| "decimal"
	| "int"
	| "integer"
	| "dateTime"
	| "DateTimeStamp"
	| "boolean"
	| "double"
	| "hexBinary"
	| "ActionType"
	| "TypeOfServiceTransaction"
	| "EPCISCaptureErrorBehaviourType";

const ENUMERATIONS: Partial<Record<SimpleType, readonly string[]>> = {
	ActionType: ["ADD", "OBSERVE", "DELETE"],
	TypeOfServiceTransaction: ["RequestingServiceTransaction", "RespondingServiceTransaction"],
	EPCISCaptureErrorBehaviourType: ["rollback", "proceed"],
};

const collapse = (value: string): string => value.replace(/[ \t\n\r]+/g, " ").trim();

/** Returns null when `value` is in the lexical space of `type`, else why not. */
export function checkSimpleValue(type: SimpleType, value: string): string | null {
	const enumeration = ENUMERATIONS[type];
	// Enumerations restrict xsd:string: white space is preserved, so " ADD" is not ADD.
	if (enumeration) return enumeration.includes(value) ? null : `'${value}' is not one of ${enumeration.join(", ")}`;
	switch (type) {
		case "string":
			return null;
		case "anyURI":
			return isLibxml2Uri(collapse(value)) ? null : `'${value}' is not a valid URI reference`;
		case "decimal":
			return isDecimal(collapse(value)) ? null : `'${value}' is not a valid decimal`;
		case "int":
		case "integer":
			return isInteger(value, type === "int") ? null : `'${value}' is not a valid ${type}`;
		case "dateTime":
			// libxml2 takes trailing but not leading white space for the built-in type.
			return isDateTime(trimWhiteSpaceEnd(value)) ? null : `'${value}' is not a valid dateTime`;
		case "DateTimeStamp": {
			const v = collapse(value);
			return DATE_TIME_STAMP.test(v) && isDateTime(v) ? null : `'${value}' is not a dateTime with a time zone offset`;
		}
		case "boolean":
			return /^(true|false|1|0)$/.test(collapse(value)) ? null : `'${value}' is not a valid boolean`;
		case "double":
			return isDouble(collapse(value)) ? null : `'${value}' is not a valid double`;
		case "hexBinary":
			return /^([0-9a-fA-F]{2})*$/.test(collapse(value)) ? null : `'${value}' is not valid hexBinary`;
		default:
			return null;
	}
}

/** The pattern facet of EPCIS 2.0's DateTimeStamp (EPCglobal-epcis-2_0.xsd). */
const DATE_TIME_STAMP =
	/^([0-9]{4})-(1[0-2]|0[1-9])-(3[01]|0[1-9]|[12][0-9])T(2[0-3]|[01][0-9]):([0-5][0-9]):([0-5][0-9])(\.[0-9]+)?(Z|(([+]|[-])((0[0-9]|1[0-3]):([0-5][0-9])|14:00)))$/;

const DATE_TIME =
	/^(-?)([0-9]{4,})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(Z|[+-]([0-9]{2}):([0-9]{2}))?$/;

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** xsd:dateTime (XSD 1.0 §3.2.7) as libxml2 reads it: 24:00:00 allowed, year 0000 not. */
export function isDateTime(value: string): boolean {
	const m = DATE_TIME.exec(value);
	if (!m) return false;
	const yearText = m[2]!;
	if (yearText.length > 4 && yearText.startsWith("0")) return false;
	const year = Number(yearText);
	if (year === 0) return false;
	const month = Number(m[3]);
	const day = Number(m[4]);
	const hour = Number(m[5]);
	const minute = Number(m[6]);
	const second = Number(m[7]);
	if (month < 1 || month > 12 || day < 1) return false;
	const days = month === 2 && isLeap(m[1] ? -year : year) ? 29 : DAYS[month - 1]!;
	if (day > days) return false;
	if (minute > 59 || second > 59) return false;
	if (hour > 24 || (hour === 24 && (minute !== 0 || second !== 0 || /[1-9]/.test(m[8] ?? "")))) return false;
	if (m[10] !== undefined) {
		const th = Number(m[10]);
		const tm = Number(m[11]);
		if (tm > 59 || th > 14 || (th === 14 && tm !== 0)) return false;
	}
	return true;
}

/** xsd:decimal; libxml2 keeps at most 24 significant digits (leading zeros of the integer part do not count). */
function isDecimal(value: string): boolean {
	const m = /^[+-]?([0-9]*)(?:\.([0-9]*))?$/.exec(value);
	if (!m || (m[1] === "" && (m[2] ?? "") === "")) return false;
	return m[1]!.replace(/^0+/, "").length + (m[2] ?? "").length <= 24;
}

/** xsd:integer/xsd:int; libxml2 accepts no surrounding white space for them. */
function isInteger(value: string, int32: boolean): boolean {
	const m = /^([+-]?)([0-9]+)$/.exec(value);
	if (!m) return false;
	const digits = m[2]!.replace(/^0+/, "");
	if (digits.length > 24) return false;
	if (!int32) return true;
	const n = Number(m[1] === "-" ? `-${digits || "0"}` : digits || "0");
	return n >= -2147483648 && n <= 2147483647;
}

/**
 * xsd:double; libxml2 takes an exponent marker without digits ("1e") and rejects "+INF".
 * `[0-9]+(\.[0-9]*)?`, not `[0-9]+\.?[0-9]*`: the latter splits a run of digits in every way
 * before it fails, quadratic in the length of a hostile value.
 */
function isDouble(value: string): boolean {
	return /^(NaN|INF|-INF|[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]*)?)$/.test(value);
}

/** `value` without trailing XML white space; a loop, since `/[ \t\n\r]+$/` is quadratic on blanks mid-value. */
function trimWhiteSpaceEnd(value: string): string {
	let end = value.length;
	while (end > 0 && " \t\n\r".includes(value[end - 1]!)) end--;
	return value.slice(0, end);
}

// RFC 3986 URI-reference, as libxml2's xmlParseURI implements it (uri.c, xmlParse3986*), after
// the schema validator's replacement of control, non-ASCII and "unwise" characters by "_".
const isAlpha = (c: string | undefined): boolean =>
	c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z"));
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string | undefined): boolean =>
	c !== undefined && ((c >= "0" && c <= "9") || (c >= "a" && c <= "f") || (c >= "A" && c <= "F"));
const isUnreserved = (c: string | undefined): boolean =>
	c !== undefined && (isAlpha(c) || isDigit(c) || c === "-" || c === "." || c === "_" || c === "~");
const isSubDelim = (c: string | undefined): boolean => c !== undefined && c.length === 1 && "!$&()*+,;='".includes(c);

class UriCursor {
	i = 0;
	constructor(readonly s: string) {}
	at(k = 0): string | undefined {
		return this.s[this.i + k];
	}
	pct(): boolean {
		return this.at() === "%" && isHex(this.at(1)) && isHex(this.at(2));
	}
	pchar(): boolean {
		const c = this.at();
		return isUnreserved(c) || this.pct() || isSubDelim(c) || c === ":" || c === "@";
	}
	next(): void {
		this.i += this.at() === "%" ? 3 : 1;
	}
	segment(forbid: string | null, empty: boolean): boolean {
		if (!this.pchar()) return empty;
		while (this.pchar() && this.at() !== forbid) this.next();
		return true;
	}
	pathAbEmpty(): boolean {
		while (this.at() === "/") {
			this.i++;
			if (!this.segment(null, true)) return false;
		}
		return true;
	}
	pathAbsolute(): boolean {
		this.i++;
		if (this.segment(null, false)) {
			while (this.at() === "/") {
				this.i++;
				if (!this.segment(null, true)) return false;
			}
		}
		return true;
	}
	decOctet(): boolean {
		const c = this.at();
		const c1 = this.at(1);
		const c2 = this.at(2);
		if (!isDigit(c)) return false;
		if (!isDigit(c1)) this.i += 1;
		else if (c !== "0" && !isDigit(c2)) this.i += 2;
		else if (c === "1" && isDigit(c2)) this.i += 3;
		else if (c === "2" && c1! >= "0" && c1! <= "4" && isDigit(c2)) this.i += 3;
		else if (c === "2" && c1 === "5" && c2 !== undefined && c2 >= "0" && c1 <= "5") this.i += 3;
		else return false;
		return true;
	}
	host(): boolean {
		const start = this.i;
		if (this.at() === "[") {
			const close = this.s.indexOf("]", this.i + 1);
			if (close < 0) return false;
			this.i = close + 1;
			return true;
		}
		if (isDigit(this.at())) {
			let ok = true;
			for (let k = 0; k < 4 && ok; k++) {
				if (!this.decOctet()) ok = false;
				else if (k < 3) {
					if (this.at() !== ".") ok = false;
					else this.i++;
				}
			}
			if (ok) return true;
			this.i = start;
		}
		while (isUnreserved(this.at()) || this.pct() || isSubDelim(this.at())) this.next();
		return true;
	}
	authority(): boolean {
		const start = this.i;
		while (isUnreserved(this.at()) || this.pct() || isSubDelim(this.at()) || this.at() === ":") this.next();
		if (this.at() === "@") this.i++;
		else this.i = start;
		if (!this.host()) return false;
		if (this.at() === ":") {
			this.i++;
			if (!isDigit(this.at())) return false;
			let port = 0;
			while (isDigit(this.at())) {
				port = port * 10 + Number(this.at());
				if (port > 2147483647) return false;
				this.i++;
			}
		}
		return true;
	}
	queryAndFragment(): boolean {
		if (this.at() === "?") {
			this.i++;
			while (this.pchar() || this.at() === "/" || this.at() === "?") this.next();
		}
		if (this.at() === "#") {
			this.i++;
			while (this.pchar() || this.at() === "/" || this.at() === "?" || this.at() === "[" || this.at() === "]")
				this.next();
		}
		return this.i >= this.s.length;
	}
}

function parseAbsolute(s: string): boolean {
	const c = new UriCursor(s);
	if (!isAlpha(c.at())) return false;
	c.i++;
	while (isAlpha(c.at()) || isDigit(c.at()) || c.at() === "+" || c.at() === "-" || c.at() === ".") c.i++;
	if (c.at() !== ":") return false;
	c.i++;
	if (c.at() === "/" && c.at(1) === "/") {
		c.i += 2;
		if (!c.authority() || !c.pathAbEmpty()) return false;
	} else if (c.at() === "/") {
		if (!c.pathAbsolute()) return false;
	} else if (c.pchar()) {
		c.segment(null, false);
		while (c.at() === "/") {
			c.i++;
			if (!c.segment(null, true)) return false;
		}
	}
	return c.queryAndFragment();
}

function parseRelative(s: string): boolean {
	const c = new UriCursor(s);
	if (c.at() === "/" && c.at(1) === "/") {
		c.i += 2;
		if (!c.authority() || !c.pathAbEmpty()) return false;
	} else if (c.at() === "/") {
		if (!c.pathAbsolute()) return false;
	} else if (c.pchar()) {
		c.segment(":", false);
		while (c.at() === "/") {
			c.i++;
			if (!c.segment(null, true)) return false;
		}
	}
	return c.queryAndFragment();
}

/** xsd:anyURI as libxml2 checks it (xmlschemastypes.c, XML_SCHEMAS_ANYURI). */
export function isLibxml2Uri(value: string): boolean {
	if (value === "") return true;
	// biome-ignore lint/suspicious/noControlCharactersInRegex: the replacement libxml2 makes
	const cleaned = value.replace(/[\u0000-\u001f\u007f-\uffff <>"{}|\\^`']/g, "_");
	return parseAbsolute(cleaned) || parseRelative(cleaned);
}
