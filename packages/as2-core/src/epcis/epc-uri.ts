/**
 * EPC URI syntax (GS1 Tag Data Standard 1.x/2.0 §6–§7) and GS1 Digital Link URIs
 * (GS1 Digital Link 1.x, EPCIS 2.0 §8.2.2): pure identities, classes, patterns, and the
 * tag/raw URIs that EPCIS events must not carry.
 */
export type EpcUriKind = "pure-identity" | "class" | "pattern" | "digital-link" | "tag" | "raw" | "other-uri";

export interface EpcUriCheck {
	kind: EpcUriKind;
	scheme?: string;
	/** Why the value is malformed; absent when it is well-formed for its kind. */
	problem?: string;
}

/** GS1 AI 82 character set, with %-escapes (TDS §5, Table 5-1). */
const SERIAL = "(?:[A-Za-z0-9!'()*+,\\-.:;=_]|%[0-9A-Fa-f]{2})";
const SERIALS = new Map<number, RegExp>();
const serial = (max: number): RegExp => {
	let re = SERIALS.get(max);
	if (!re) {
		re = new RegExp(`^${SERIAL}{1,${max}}$`);
		SERIALS.set(max, re);
	}
	return re;
};

/** Digits of company prefix + reference must total `digits`; the prefix is 6 to 12 digits. */
function keyParts(parts: string[], digits: number, count: number): string | undefined {
	if (parts.length !== count) return `expected ${count} dot-separated fields`;
	const [prefix, ref] = parts;
	if (!/^[0-9]{6,12}$/.test(prefix!)) return "company prefix must be 6 to 12 digits";
	if (!/^[0-9]*$/.test(ref!)) return "reference must be digits";
	if (prefix!.length + ref!.length !== digits) return `company prefix and reference must total ${digits} digits`;
	return undefined;
}

const PURE: Record<string, (parts: string[]) => string | undefined> = {
	sgtin: (p) =>
		keyParts(p, 13, 3) ?? (serial(20).test(p[2]!) ? undefined : "serial must be 1 to 20 GS1 AI 82 characters"),
	sscc: (p) => {
		if (p.length !== 2) return "expected 2 dot-separated fields";
		if (!/^[0-9]{6,12}$/.test(p[0]!) || !/^[0-9]+$/.test(p[1]!)) return "fields must be digits";
		return p[0]!.length + p[1]!.length === 17 ? undefined : "company prefix and serial reference must total 17 digits";
	},
	sgln: (p) =>
		keyParts(p, 12, 3) ?? (serial(20).test(p[2]!) ? undefined : "extension must be 1 to 20 GS1 AI 82 characters"),
	grai: (p) =>
		keyParts(p, 12, 3) ??
		(/^(?:[A-Za-z0-9!'()*+,\-.:;=_]|%[0-9A-Fa-f]{2}){0,16}$/.test(p[2]!)
			? undefined
			: "serial must be up to 16 characters"),
	giai: (p) => {
		if (p.length !== 2 || !/^[0-9]{6,12}$/.test(p[0]!)) return "expected CompanyPrefix.AssetReference";
		return new RegExp(`^${SERIAL}{1,${30 - p[0]!.length}}$`).test(p[1]!)
			? undefined
			: "asset reference too long or not GS1 AI 82";
	},
	gsrn: (p) => keyParts(p, 17, 2),
	gsrnp: (p) => keyParts(p, 17, 2),
	gdti: (p) => keyParts(p, 12, 3),
	sgcn: (p) => keyParts(p, 12, 3),
	pgln: (p) => keyParts(p, 12, 2),
	cpi: (p) => (p.length === 3 ? undefined : "expected 3 dot-separated fields"),
	ginc: (p) => (p.length === 2 ? undefined : "expected 2 dot-separated fields"),
	gsin: (p) => keyParts(p, 16, 2),
	itip: (p) => (p.length === 5 ? undefined : "expected 5 dot-separated fields"),
	upui: (p) => (p.length === 3 ? undefined : "expected 3 dot-separated fields"),
	usdod: (p) => (p.length === 2 ? undefined : "expected 2 dot-separated fields"),
	adi: (p) => (p.length === 3 ? undefined : "expected 3 dot-separated fields"),
	gid: (p) => (p.length === 3 && p.every((x) => /^[0-9]+$/.test(x)) ? undefined : "expected 3 numeric fields"),
	bic: (p) => (p.length === 1 ? undefined : "expected one field"),
	imovn: (p) => (p.length === 1 ? undefined : "expected one field"),
};

/** GS1 mod-10 check digit over all digits but the last. */
export function hasValidCheckDigit(digits: string): boolean {
	let sum = 0;
	for (let i = digits.length - 2, w = 3; i >= 0; i--, w = 4 - w) sum += Number(digits[i]) * w;
	return (10 - (sum % 10)) % 10 === Number(digits.at(-1));
}

const DIGITAL_LINK_KEYS: Record<string, { digits?: number; scheme: string }> = {
	"01": { digits: 14, scheme: "sgtin" },
	"00": { digits: 18, scheme: "sscc" },
	"414": { digits: 13, scheme: "sgln" },
	"8003": { scheme: "grai" },
	"8004": { scheme: "giai" },
	"8018": { digits: 18, scheme: "gsrn" },
	"253": { scheme: "gdti" },
	"417": { digits: 13, scheme: "pgln" },
};

function checkDigitalLink(url: URL): EpcUriCheck {
	const segments = url.pathname.split("/").filter((s) => s !== "");
	for (let i = 0; i + 1 < segments.length; i += 2) {
		const key = DIGITAL_LINK_KEYS[segments[i]!];
		if (!key) continue;
		const value = decodeURIComponent(segments[i + 1]!);
		if (key.digits !== undefined) {
			if (!new RegExp(`^[0-9]{${key.digits}}$`).test(value)) {
				return { kind: "digital-link", scheme: key.scheme, problem: `AI ${segments[i]} must be ${key.digits} digits` };
			}
			if (!hasValidCheckDigit(value))
				return { kind: "digital-link", scheme: key.scheme, problem: `AI ${segments[i]} has a wrong check digit` };
		}
		const rest = segments.slice(i + 2);
		if (segments[i] === "01") {
			const qualifier = rest[0];
			if (qualifier === "21") return { kind: "digital-link", scheme: "sgtin" };
			if (qualifier === "10") return { kind: "digital-link", scheme: "lgtin" };
			return { kind: "digital-link", scheme: "gtin" };
		}
		return { kind: "digital-link", scheme: key.scheme };
	}
	return { kind: "other-uri" };
}

/**
 * What kind of identifier `value` is (pure identity, class, pattern, Digital Link, tag, raw,
 * other URI) and, when it is malformed for its kind, why.
 *
 * @example
 * checkEpcUri("urn:epc:id:sgtin:0614141.107346.2017"); // { kind: "pure-identity", scheme: "sgtin" }
 * checkEpcUri("urn:epc:id:sscc:0614141.123").problem; // "company prefix and serial reference must total 17 digits"
 */
export function checkEpcUri(value: string): EpcUriCheck {
	const v = value.trim();
	let m = /^urn:epc:id:([a-z]+):(.*)$/.exec(v);
	if (m) {
		const check = PURE[m[1]!];
		if (!check) return { kind: "pure-identity", scheme: m[1], problem: `unknown EPC scheme ${m[1]}` };
		const problem = check(m[2]!.split("."));
		return problem ? { kind: "pure-identity", scheme: m[1], problem } : { kind: "pure-identity", scheme: m[1] };
	}
	m = /^urn:epc:class:([a-z]+):(.*)$/.exec(v);
	if (m) {
		if (m[1] !== "lgtin") return { kind: "class", scheme: m[1], problem: `unknown EPC class scheme ${m[1]}` };
		const parts = m[2]!.split(".");
		const problem =
			keyParts(parts, 13, 3) ?? (serial(20).test(parts[2]!) ? undefined : "lot must be 1 to 20 GS1 AI 82 characters");
		return problem ? { kind: "class", scheme: "lgtin", problem } : { kind: "class", scheme: "lgtin" };
	}
	m = /^urn:epc:idpat:([a-z]+):(.*)$/.exec(v);
	if (m)
		return /^[0-9.*A-Za-z%\-_]+$/.test(m[2]!)
			? { kind: "pattern", scheme: m[1] }
			: { kind: "pattern", scheme: m[1], problem: "malformed pattern" };
	if (/^urn:epc:tag:/.test(v))
		return {
			kind: "tag",
			problem:
				"EPC tag URIs (with filter and partition) belong to tags, not to EPCIS events: use the pure identity URI",
		};
	if (/^urn:epc:raw:/.test(v)) return { kind: "raw", problem: "raw EPC URIs are not pure identities" };
	if (/^https?:\/\//.test(v)) {
		try {
			return checkDigitalLink(new URL(v));
		} catch {
			return { kind: "other-uri", problem: "malformed URI" };
		}
	}
	if (/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(v)) return { kind: "other-uri" };
	return { kind: "other-uri", problem: "not a URI" };
}
