import { toHex } from "../bytes/index.ts";
import { childrenOf, contentOf, encodingOf, expectTag, oidOf, readRoot, TAG, type Tlv } from "./ber-reader.ts";

/** Short names of RFC 4514 §3, plus those OpenSSL prints in its RFC 2253 mode. */
const SHORT_NAMES: Record<string, string> = {
	"2.5.4.3": "CN",
	"2.5.4.5": "serialNumber",
	"2.5.4.6": "C",
	"2.5.4.7": "L",
	"2.5.4.8": "ST",
	"2.5.4.9": "STREET",
	"2.5.4.10": "O",
	"2.5.4.11": "OU",
	"2.5.4.12": "title",
	"2.5.4.42": "GN",
	"2.5.4.4": "SN",
	"0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1": "UID",
	"1.2.840.113549.1.9.1": "emailAddress",
};

/**
 * RFC 4514 string of a DER Name (RDNs last-to-first, `,` between them, `+` inside
 * multi-valued RDNs), the same as `openssl x509 -nameopt RFC2253`.
 */
export function formatName(nameDer: Uint8Array): string {
	const name = expectTag(readRoot(nameDer), TAG.SEQUENCE, "Name");
	const rdns = childrenOf(nameDer, name).map((rdn) =>
		childrenOf(nameDer, expectTag(rdn, TAG.SET, "RelativeDistinguishedName"))
			.map((atv) => formatAttribute(nameDer, atv))
			.join("+"),
	);
	return rdns.reverse().join(",");
}

function formatAttribute(bytes: Uint8Array, atv: Tlv): string {
	const [type, value] = childrenOf(bytes, expectTag(atv, TAG.SEQUENCE, "AttributeTypeAndValue"));
	const oid = oidOf(bytes, expectTag(type, TAG.OID, "attribute type"));
	if (!value) return `${SHORT_NAMES[oid] ?? oid}=`;
	const text = decodeString(bytes, value);
	// RFC 4514 §2.4: values that are not strings are written as '#' and the hex of their BER.
	return `${SHORT_NAMES[oid] ?? oid}=${text === undefined ? `#${toHex(encodingOf(bytes, value))}` : escapeValue(text)}`;
}

function decodeString(bytes: Uint8Array, value: Tlv): string | undefined {
	if (value.cls !== 0 || value.constructed) return undefined;
	const content = contentOf(bytes, value);
	switch (value.number) {
		case TAG.UTF8_STRING:
			return new TextDecoder().decode(content);
		case TAG.PRINTABLE_STRING:
		case TAG.IA5_STRING:
		case TAG.T61_STRING:
			return String.fromCharCode(...content);
		case TAG.BMP_STRING:
			return new TextDecoder("utf-16be").decode(content);
		case TAG.UNIVERSAL_STRING: {
			let s = "";
			for (let i = 0; i + 3 < content.byteLength; i += 4) {
				const point = ((content[i]! << 24) | (content[i + 1]! << 16) | (content[i + 2]! << 8) | content[i + 3]!) >>> 0;
				s += String.fromCodePoint(point <= 0x10ffff ? point : 0xfffd);
			}
			return s;
		}
		default:
			return undefined;
	}
}

function escapeValue(value: string): string {
	let out = value.replace(/[\\,+"<>;]/g, (c) => `\\${c}`).replace(/\0/g, "\\00");
	if (out.startsWith("#") || out.startsWith(" ")) out = `\\${out}`;
	if (out.endsWith(" ") && out.length > 1) out = `${out.slice(0, -1)}\\ `;
	return out;
}
