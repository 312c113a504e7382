import { deflateSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunksOf, collect } from "../bytes/index.ts";
import { deflateBytes, deflateChunks } from "./zlib.ts";

const text = (n: number) => new TextEncoder().encode("ISA*00*~GS*PO*ALICE*BOB~ST*850*0001~\r\n".repeat(n));
const input = fc.oneof(fc.uint8Array({ maxLength: 70_000 }), fc.integer({ min: 0, max: 2000 }).map(text));

describe("deflate", () => {
	it("one-shot deflate does not depend on the size of zlib's output buffer (property)", () => {
		fc.assert(
			fc.property(input, fc.integer({ min: 0, max: 9 }), (data, level) => {
				const reference = deflateSync(data, { level, chunkSize: 64 * 1024 });
				expect(Buffer.from(deflateBytes(data, { level })).equals(reference)).toBe(true);
			}),
			{ numRuns: 300 },
		);
	});

	it("one-shot and streaming deflate give the same bytes at levels 1-9, whatever the chunking (property)", async () => {
		// Level 0 stores: its blocks follow how the output is drained, so the two may differ.
		await fc.assert(
			fc.asyncProperty(
				input,
				fc.integer({ min: 1, max: 9 }),
				fc.integer({ min: 1, max: 70_000 }),
				async (data, level, chunk) => {
					const streamed = await collect(deflateChunks(chunksOf(data, chunk), { level }));
					expect(Buffer.from(deflateBytes(data, { level })).equals(Buffer.from(streamed))).toBe(true);
				},
			),
			{ numRuns: 150 },
		);
	});
});
