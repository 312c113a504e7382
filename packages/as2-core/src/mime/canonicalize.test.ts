import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Chunks, collect, sourceFromBytes } from "../bytes/index.ts";
import { canonicalizeLineEndings, canonicalSize, isTextMediaType } from "./canonicalize.ts";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const text = (data: Uint8Array) => Buffer.from(data).toString("latin1");

function split(data: Uint8Array, cuts: number[] = []): Uint8Array[] {
	const out: Uint8Array[] = [];
	let from = 0;
	for (const cut of [...cuts].sort((a, b) => a - b)) {
		out.push(data.subarray(from, cut));
		from = cut;
	}
	out.push(data.subarray(from));
	return out;
}

async function* from(list: Uint8Array[]): Chunks {
	yield* list;
}

const canonical = async (input: string, cuts: number[] = []) =>
	text(await collect(canonicalizeLineEndings(from(split(bytes(input), cuts)))));

const reference = (input: string) => input.replace(/\r\n|\r|\n/g, "\r\n");

describe("canonicalizeLineEndings", () => {
	it("turns bare LF and bare CR into CRLF and keeps CRLF (RFC 5751 §3.1.1)", async () => {
		expect(await canonical("a\nb\rc\r\nd")).toBe("a\r\nb\r\nc\r\nd");
		expect(await canonical("\n\n\r\r\r\n\n\r")).toBe("\r\n\r\n\r\n\r\n\r\n\r\n\r\n");
		expect(await canonical("")).toBe("");
		expect(await canonical("no line end")).toBe("no line end");
	});

	it("joins a CR and an LF that arrive in different chunks", async () => {
		expect(await canonical("a\r\nb", [2])).toBe("a\r\nb");
		expect(await canonical("a\rb", [2])).toBe("a\r\nb");
		expect(await canonical("a\r", [2])).toBe("a\r\n");
		expect(await canonical("a\r\r\n", [2, 3])).toBe("a\r\n\r\n");
		expect(await canonical("\nx", [0])).toBe("\r\nx");
	});

	it("passes canonical chunks through without copying", async () => {
		const chunk = bytes("line 1\r\nline 2\r\n");
		const out: Uint8Array[] = [];
		for await (const piece of canonicalizeLineEndings(from([chunk, chunk]))) out.push(piece);
		expect(out).toHaveLength(2);
		expect(out[0]).toBe(chunk);
		expect(out[1]).toBe(chunk);
	});

	it("equals a regex reference for any input and chunking, and canonicalSize agrees (property)", async () => {
		const input = fc
			.array(fc.constantFrom("\r", "\n", "\r\n", "a", "bc", "\u00ff", " "), { maxLength: 60 })
			.map((a) => a.join(""));
		await fc.assert(
			fc.asyncProperty(input, fc.array(fc.nat(), { maxLength: 10 }), async (value, rawCuts) => {
				const cuts = rawCuts.map((c) => c % (value.length + 1));
				const out = await canonical(value, cuts);
				expect(out).toBe(reference(value));
				const data = bytes(value);
				const list = split(data, cuts);
				expect(await canonicalSize({ size: data.byteLength, open: () => from(list) })).toBe(out.length);
			}),
			{ numRuns: 1000 },
		);
	});

	it("handles large chunks of LF text and binary data", async () => {
		const lf = bytes(`${"x".repeat(79)}\n`.repeat(5000));
		const out = await collect(canonicalizeLineEndings(from(split(lf, [65536, 131072]))));
		expect(out.byteLength).toBe(lf.byteLength + 5000);
		expect(text(out)).toBe(reference(text(lf)));
		const binary = new Uint8Array(200_000);
		for (let i = 0; i < binary.byteLength; i += 65536) crypto.getRandomValues(binary.subarray(i, i + 65536));
		const canon = await collect(canonicalizeLineEndings(from(split(binary, [65536]))));
		expect(text(canon)).toBe(reference(text(binary)));
		expect(await canonicalSize(sourceFromBytes(binary))).toBe(canon.byteLength);
	});
});

describe("isTextMediaType", () => {
	it("is true for text/* only", () => {
		expect(isTextMediaType("text/plain")).toBe(true);
		expect(isTextMediaType("TEXT/XML")).toBe(true);
		expect(isTextMediaType("text/csv; charset=utf-8")).toBe(true);
		expect(isTextMediaType("application/edi-x12")).toBe(false);
		expect(isTextMediaType("application/text")).toBe(false);
		expect(isTextMediaType("textual/plain")).toBe(false);
		expect(isTextMediaType("")).toBe(false);
	});
});
