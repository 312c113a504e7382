import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Chunks, collect } from "../bytes/index.ts";
import { isAs2Error } from "../errors/index.ts";
import { readMultipart } from "./multipart.ts";
import { splitMultipart } from "./multipart-split.ts";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const text = (data: Uint8Array) => Buffer.from(data).toString("latin1");

async function* pieces(data: Uint8Array, cuts: number[]): Chunks {
	let from = 0;
	for (const cut of [...new Set(cuts.map((c) => c % (data.byteLength + 1)))].sort((a, b) => a - b)) {
		yield data.subarray(from, cut);
		from = cut;
	}
	yield data.subarray(from);
}

/** The parts, or the error code (the message of a malformed body can depend on the chunking). */
type Reading = { parts: string[] } | { error: string };

async function streamed(body: Uint8Array, boundary: string, cuts: number[]): Promise<Reading> {
	try {
		const parts: string[] = [];
		for await (const part of readMultipart(pieces(body, cuts), boundary)) parts.push(text(await collect(part.raw)));
		return { parts };
	} catch (error) {
		if (!isAs2Error(error)) throw error;
		return { error: error.code };
	}
}

function split(body: Uint8Array, boundary: string): Reading {
	try {
		return { parts: splitMultipart(body, boundary).map(text) };
	} catch (error) {
		if (!isAs2Error(error)) throw error;
		return { error: error.code };
	}
}

/** Bodies built from the pieces that matter around delimiters, in any order. */
const piece = fc.constantFrom(
	"--b",
	"--b--",
	"--bx",
	"\r\n",
	"\n",
	"\r",
	" ",
	"\t",
	" ".repeat(1024),
	"\t".repeat(1025),
	"-",
	"data",
	"Content-Type: text/plain\r\n\r\n",
	"\r\n--b\r\n",
	"\n--b\n",
	"\r\n--b--",
	"\r\n--b  \t\r\n",
);

describe("splitMultipart reads exactly what readMultipart streams", () => {
	it("the same parts, or the same error, for any body and any chunking (property)", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(piece, { maxLength: 24 }).map((p) => bytes(p.join(""))),
				fc.array(fc.nat(), { maxLength: 6 }),
				async (body, cuts) => {
					expect(split(body, "b")).toEqual(await streamed(body, "b", cuts));
				},
			),
			{ numRuns: 3000 },
		);
	});

	it("parts are views of the body, CRLF before a delimiter excluded (RFC 2046 §5.1.1)", () => {
		const body = bytes("preamble\r\n--b\r\nA\r\n--b \t\nB\n--b--\r\nepilogue");
		const parts = splitMultipart(body, "b");
		expect(parts.map(text)).toEqual(["A", "B"]);
		expect(parts[0]!.buffer).toBe(body.buffer);
	});
});
