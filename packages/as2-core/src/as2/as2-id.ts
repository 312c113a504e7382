import { As2Error } from "../errors/index.ts";

/**
 * AS2-From / AS2-To values (RFC 4130 §6.2): 1 to 128 printable ASCII characters; an id with
 * spaces or specials travels as a quoted-string, `"` and `\` escaped (as2-anchors §D12).
 */
const PRINTABLE = /^[\x20-\x7e]{1,128}$/;
const ATOM = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.]+$/;

export function formatAs2Id(id: string): string {
	if (!PRINTABLE.test(id)) throw new As2Error("INVALID_AS2_HEADERS", `AS2 id must be 1-128 printable ASCII characters`);
	return ATOM.test(id) ? id : `"${id.replace(/(["\\])/g, "\\$1")}"`;
}

/** Reads an AS2-From/AS2-To header value: quoted or not, surrounding white space ignored. */
export function parseAs2Id(value: string | undefined, header = "AS2 id"): string {
	const v = value?.trim() ?? "";
	if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
		const inner = v.slice(1, -1).replace(/\\(.)/g, "$1");
		if (inner.length > 0 && PRINTABLE.test(inner)) return inner;
	} else if (PRINTABLE.test(v)) {
		return v;
	}
	throw new As2Error("INVALID_AS2_HEADERS", `${header} is missing or not 1-128 printable ASCII characters`);
}
