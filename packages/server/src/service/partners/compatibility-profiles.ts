import type { CompatibilityChoice, CompatibilitySwitches } from "@as2kit/core/store";

/**
 * Named bundles of compatibility switches for the AS2 implementations partners run. A profile
 * sets a switch only where the research notes (`as2-anchors.md` §A, §B.7, §C, §D) or a source
 * they cite show the implementation needs it; every other switch keeps the strict default,
 * and `why` says what is known.
 */
export interface CompatibilityProfile {
	name: string;
	description: string;
	/** Only the switches that differ from the strict defaults. */
	switches: Partial<CompatibilitySwitches>;
	why: string;
}

/** Strict RFC 4130 / RFC 5652 / RFC 6211: what a partner gets when nothing is said. */
export const DEFAULT_SWITCHES: Readonly<CompatibilitySwitches> = Object.freeze({
	signedAttributes: true,
	algorithmProtection: true,
	transferEncoding: "binary",
	compressOrder: "before-sign",
	keyEncryption: "rsa",
	chunked: false,
});

export const COMPATIBILITY_PROFILES: readonly CompatibilityProfile[] = [
	{
		name: "default",
		description: "Strict RFC: signed attributes with RFC 6211 algorithm protection, binary MIME parts, Content-Length",
		switches: {},
		why: "RFC 4130 §7.3, RFC 5652 §5.3, RFC 6211; HTTP framing with Content-Length because some servers refuse chunked bodies (OpenAS2 HowTo §17.5, as2-anchors §D.11)",
	},
	{
		name: "ibm-sterling",
		description: "IBM Sterling B2B Integrator (and DataPower): signatures without CMS signed attributes",
		switches: { signedAttributes: false, algorithmProtection: false },
		why: "Sterling rejects signatures that carry CMS signed attributes (pyas2-lib#76, django-pyas2#99) and the RFC 6211 algorithm-protection attribute (OpenAS2 HowTo §17.4 and compatibility table): as2-anchors §C.5, §D.9",
	},
	{
		name: "mendelson",
		description: "mendelson AS2: reads the strict defaults",
		switches: {},
		why: "No sending switch needed: mendelson reads signed attributes, binary parts and RSAES-OAEP (as2-anchors §A); its MIC without canonicalization (OpenAS2 prevent_canonicalization_for_mic, §D.1) concerns what we receive, which is tolerated",
	},
	{
		name: "openas2",
		description: "OpenAS2: reads the strict defaults; PKCS#1 v1.5 key transport",
		switches: {},
		why: "OpenAS2 has no RSA-OAEP key transport (as2-anchors §A), so key_encryption stays rsa; it reads both compression orders (§A, compression_mode) and receives chunked or Content-Length",
	},
	{
		name: "pyas2",
		description: "pyas2-lib and django-pyas2: reads the strict defaults; compression before signing",
		switches: {},
		why: "pyas2-lib compresses before signing and parses either order (as2-anchors §B.4a); django-pyas2 pins pyas2-lib 1.4.3 without OAEP (§A), so key_encryption stays rsa",
	},
	{
		name: "aws-transfer-family",
		description: "AWS Transfer Family AS2: reads the strict defaults; PKCS#1 v1.5 key transport",
		switches: {},
		why: "AWS lists AES-CBC/3DES with RSA key transport and no OAEP (as2-anchors §A, §B.7, docs.aws.amazon.com/transfer/latest/userguide/as2-supported-configurations.html), so key_encryption stays rsa",
	},
	{
		name: "cleo",
		description: "Cleo VersaLex/Harmony: reads the strict defaults",
		switches: {},
		why: "Cleo's key algorithm defaults to RSA (RSAES-OAEP optional) and it accepts AS2 1.0–1.3 (as2-anchors §B.7, portal.cleo.com r_AS2_Mailbox_AS2Tab); no sending quirk is documented",
	},
	{
		name: "axway",
		description: "Axway B2Bi / Interchange: base64 Content-Transfer-Encoding",
		switches: { transferEncoding: "base64" },
		why: "Axway B2Bi could not find the signature of binary-encoded parts; base64 fixed it (django-pyas2#5, as2-anchors §C.4, §D.2)",
	},
	{
		name: "seeburger",
		description: "SEEBURGER BIS: reads the strict defaults",
		switches: {},
		why: "Only older SEEBURGER versions are known to need old micalg names (OpenAS2 rename_digest_to_old_name, as2-anchors §D.5), which no switch here changes; the rest stays strict",
	},
];

/** A change to a partner's choice: a switch set to null is unset again (its profile's value applies). */
export type CompatibilityPatch = { [K in keyof CompatibilitySwitches]?: CompatibilitySwitches[K] | null } & {
	profile?: string | null;
};

const BY_NAME = new Map(COMPATIBILITY_PROFILES.map((profile) => [profile.name, profile]));

export function findCompatibilityProfile(name: string): CompatibilityProfile | undefined {
	return BY_NAME.get(name);
}

/** The switches a partner's messages are built with: defaults, then its profile, then its own switches. */
export function effectiveCompatibility(choice: CompatibilityChoice): CompatibilitySwitches {
	const { profile, ...own } = choice;
	const fromProfile = profile ? (BY_NAME.get(profile)?.switches ?? {}) : {};
	return { ...DEFAULT_SWITCHES, ...fromProfile, ...definedSwitches(own) };
}

/**
 * The choice as the partner made it. A record written before profiles held every switch, the
 * defaults included: those are taken as unset, so that a profile chosen later is not
 * overridden by defaults nobody picked (the effective switches do not change).
 */
export function givenCompatibility(choice: CompatibilityChoice): CompatibilityChoice {
	if ("profile" in choice) return choice;
	const own = definedSwitches(choice);
	return Object.fromEntries(
		Object.entries(own).filter(([key, value]) => DEFAULT_SWITCHES[key as keyof CompatibilitySwitches] !== value),
	);
}

/** `current` with `patch` applied: given fields change, null switches are removed. */
export function applyCompatibility(current: CompatibilityChoice, patch: CompatibilityPatch): CompatibilityChoice {
	const merged: Record<string, unknown> = { profile: null, ...givenCompatibility(current) };
	for (const [key, value] of Object.entries(patch)) {
		if (value === undefined) continue;
		if (value === null && key !== "profile") delete merged[key];
		else merged[key] = value;
	}
	return merged as CompatibilityChoice;
}

function definedSwitches(value: Partial<CompatibilitySwitches>): Partial<CompatibilitySwitches> {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
