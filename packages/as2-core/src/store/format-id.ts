/** `<prefix><digits>` zero-padded to 6 digits, growing past them (decisions.md, Identifiers). */
export function formatId(prefix: string, value: number): string {
	return `${prefix}${String(value).padStart(6, "0")}`;
}
