import { toHex } from "../bytes/index.ts";
import { randomBytes } from "../crypto/index.ts";

/**
 * A new RFC 5322 §3.6.4 msg-id, `<unique@domain>`. The unique part is time plus 128 random
 * bits, so retries can keep it and partners can de-duplicate on it.
 */
export function createMessageId(domain = "as2kit.local"): string {
	return `<${Date.now().toString(36)}.${toHex(randomBytes(16))}@${domain}>`;
}

/** The id without angle brackets or white space, as stored and shown in JSON (decisions.md). */
export function stripMessageId(value: string): string {
	// Not `.replace(/\s*>$/, "")`: that backtracks quadratically over blanks inside the id.
	let id = value.trim();
	if (id.startsWith("<")) id = id.slice(1).trimStart();
	if (id.endsWith(">")) id = id.slice(0, -1).trimEnd();
	return id;
}

/** `<…>` form for headers; tolerates input with or without brackets. */
export function formatMessageId(value: string): string {
	return `<${stripMessageId(value)}>`;
}
