/**
 * AS2 identifiers of tenants and partners: 1–50 characters, letters, digits, hyphens and
 * underscores (interface spec, Partner.as2_id). Stricter than RFC 4130 §6.2, which allows
 * quoted printable ASCII, but what every hosted service enforces.
 */
export const AS2_ID_PATTERN = /^[A-Za-z0-9_-]{1,50}$/;

export function isValidAs2Id(value: string): boolean {
	return AS2_ID_PATTERN.test(value);
}

/** A default AS2 identifier from a display name: `Acme Corp.` → `ACME_CORP`. */
export function as2IdFromName(name: string): string {
	const base = name
		.normalize("NFKD")
		.replace(/[^\w\s-]/g, "")
		.trim()
		.replace(/[\s-]+/g, "_")
		.toUpperCase()
		.slice(0, 40);
	return base || "TENANT";
}

/** A URL-safe slug: `Acme Corp.` → `acme-corp`. */
export function slugFromName(name: string): string {
	const base = name
		.normalize("NFKD")
		.replace(/[^\w\s-]/g, "")
		.trim()
		.toLowerCase()
		.replace(/[\s_-]+/g, "-")
		.slice(0, 60);
	return base || "tenant";
}

/** `base`, then `base-2`, `base-3` … until `taken` says no; bounded. */
export async function firstFree(
	base: string,
	separator: string,
	taken: (candidate: string) => Promise<boolean>,
): Promise<string> {
	for (let n = 1; n <= 1000; n++) {
		const candidate = n === 1 ? base : `${base}${separator}${n}`;
		if (!(await taken(candidate))) return candidate;
	}
	throw new Error(`no free identifier after ${base}${separator}1000`);
}
