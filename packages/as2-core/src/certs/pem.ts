import { fromBase64, fromLatin1, toBase64 } from "../bytes/index.ts";

/** A PEM block (RFC 7468): its label and decoded contents. */
export interface PemBlock {
	label: string;
	der: Uint8Array;
}

const BLOCK = /-----BEGIN ([A-Z0-9 #]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * Every PEM block in a text, in order, ignoring the surrounding text (OpenSSL's "Bag
 * Attributes" and "subject=" lines, mail signatures…). RFC 7468 §2 explanatory text and
 * `Proc-Type`/`DEK-Info` headers (legacy encrypted keys) are skipped.
 */
export function readPemBlocks(text: string): PemBlock[] {
	const blocks: PemBlock[] = [];
	for (const match of text.matchAll(BLOCK)) {
		const body = (match[2] ?? "")
			.split(/\r?\n/)
			.filter((line) => !line.includes(":"))
			.join("");
		if (/[^A-Za-z0-9+/=\s]/.test(body)) continue;
		blocks.push({ label: match[1]!, der: fromBase64(body) });
	}
	return blocks;
}

export function looksLikePem(input: string | Uint8Array): boolean {
	const head = typeof input === "string" ? input : fromLatin1(input.subarray(0, Math.min(input.byteLength, 65536)));
	return head.includes("-----BEGIN ");
}

export function toPem(label: string, der: Uint8Array): string {
	const base64 = toBase64(der);
	const lines: string[] = [];
	for (let i = 0; i < base64.length; i += 64) lines.push(base64.slice(i, i + 64));
	return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
