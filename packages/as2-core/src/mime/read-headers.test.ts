import { describe, expect, it } from "vitest";
import { cpuStopwatch } from "../../test/helpers/cpu-time.ts";
import { errorCode as code } from "../../test/helpers/error-code.ts";
import { ByteReader, type Chunks, collect } from "../bytes/index.ts";
import { readHeaderBlock } from "./read-headers.ts";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const text = (data: Uint8Array) => Buffer.from(data).toString("latin1");

async function* pieces(data: Uint8Array, cuts: number[]): Chunks {
	let from = 0;
	for (const cut of [...cuts, data.byteLength]) {
		yield data.subarray(from, cut);
		from = cut;
	}
}

async function read(data: string, cuts: number[] = [], maxBytes?: number) {
	const reader = new ByteReader(pieces(bytes(data), cuts));
	const result = await readHeaderBlock(reader, maxBytes === undefined ? {} : { maxBytes });
	return { headers: result.headers.entries(), raw: text(result.raw), rest: text(await collect(reader.rest())) };
}

describe("readHeaderBlock", () => {
	it("consumes up to and including CRLF CRLF and leaves the body", async () => {
		expect(await read("Content-Type: text/plain\r\nX: 1\r\n\r\nbody\r\n\r\nmore")).toEqual({
			headers: [
				["Content-Type", "text/plain"],
				["X", "1"],
			],
			raw: "Content-Type: text/plain\r\nX: 1\r\n\r\n",
			rest: "body\r\n\r\nmore",
		});
	});

	it("accepts LF LF and mixed blank lines", async () => {
		for (const [input, raw] of [
			["A: 1\n\nbody", "A: 1\n\n"],
			["A: 1\r\n\nbody", "A: 1\r\n\n"],
			["A: 1\n\r\nbody", "A: 1\n\r\n"],
		]) {
			const result = await read(input!);
			expect(result.raw).toBe(raw);
			expect(result.rest).toBe("body");
			expect(result.headers).toEqual([["A", "1"]]);
		}
	});

	it("a CR inside a line does not end it", async () => {
		const result = await read("A: x\ry\r\n\r\nbody");
		expect(result.headers).toEqual([["A", "x\ry"]]);
		expect(result.rest).toBe("body");
	});

	it("finds the blank line at every chunk split", async () => {
		const input = "Content-Type: text/plain;\r\n charset=utf-8\r\nB: 2\r\n\r\n\r\nbody\r\n";
		const expected = await read(input);
		expect(expected.rest).toBe("\r\nbody\r\n");
		for (let a = 0; a <= input.length; a++) {
			for (let b = a; b <= input.length; b += 7) expect(await read(input, [a, b])).toEqual(expected);
		}
	});

	it("a body part with no fields starts with the blank line (empty headers)", async () => {
		expect(await read("\r\nbody")).toEqual({ headers: [], raw: "\r\n", rest: "body" });
		expect(await read("\nbody")).toEqual({ headers: [], raw: "\n", rest: "body" });
	});

	it("empty input, or input ending after a whole header line, is a part without a body (RFC 2046 §5.1.1)", async () => {
		expect(await read("")).toEqual({ headers: [], raw: "", rest: "" });
		expect(await read("Content-Type: text/plain\r\n", [10])).toEqual({
			headers: [["Content-Type", "text/plain"]],
			raw: "Content-Type: text/plain\r\n",
			rest: "",
		});
	});

	it("input cut inside a header line is MALFORMED_MIME", async () => {
		expect(await code(read("Content-Type: text/pl"))).toBe("MALFORMED_MIME");
		expect(await code(read("A: 1\r\nB: 2\r"))).toBe("MALFORMED_MIME");
	});

	it("a line without a colon is MALFORMED_MIME", async () => {
		expect(await code(read("not a header\r\n\r\n"))).toBe("MALFORMED_MIME");
	});

	it("fails fast on a 1 MB header line and pulls no more than maxBytes plus one chunk", async () => {
		let pulled = 0;
		async function* hostile(): Chunks {
			yield bytes("X-Long: ");
			for (let i = 0; i < 16; i++) {
				pulled += 64 * 1024;
				yield new Uint8Array(64 * 1024).fill(0x61);
			}
			yield bytes("\r\n\r\n");
		}
		const cpuMs = cpuStopwatch();
		expect(await code(readHeaderBlock(new ByteReader(hostile())))).toBe("MALFORMED_MIME");
		expect(cpuMs()).toBeLessThan(500);
		expect(pulled).toBeLessThanOrEqual(2 * 64 * 1024);
	});

	it("maxBytes counts the blank line", async () => {
		const input = "A: 1\r\n\r\n";
		expect((await read(input, [], input.length)).raw).toBe(input);
		expect(await code(read(input, [], input.length - 1))).toBe("MALFORMED_MIME");
		expect(await code(read(`${"A: 1\r\n".repeat(20)}\r\n`, [3, 9], 64))).toBe("MALFORMED_MIME");
	});
});
