import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { errorCode as code } from "../../test/helpers/error-code.ts";
import { ByteReader, type Chunks, collect } from "../bytes/index.ts";
import { formatHeaderValue, parseContentType } from "./content-type.ts";
import { multipartBoundary, readMultipart } from "./multipart.ts";
import { readHeaderBlock } from "./read-headers.ts";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const text = (data: Uint8Array) => Buffer.from(data).toString("latin1");

async function* pieces(data: Uint8Array, cuts: number[]): Chunks {
	let from = 0;
	for (const cut of [...cuts].sort((a, b) => a - b)) {
		yield data.subarray(from, cut);
		from = cut;
	}
	yield data.subarray(from);
}

async function parts(body: string | Chunks, boundary: string, cuts: number[] = []): Promise<string[]> {
	const chunks = typeof body === "string" ? pieces(bytes(body), cuts) : body;
	const out: string[] = [];
	for await (const part of readMultipart(chunks, boundary)) {
		expect(part.index).toBe(out.length);
		out.push(text(await collect(part.raw)));
	}
	return out;
}

const SIGNED =
	"This is a preamble\r\n" +
	"--b1\r\n" +
	"Content-Type: application/edi-x12\r\n\r\n" +
	"ISA*00*~\r\nGS*IN~\r\n" +
	"\r\n--b1\r\n" +
	"Content-Type: application/pkcs7-signature\r\n\r\n" +
	"MIIB\r\n" +
	"\r\n--b1--\r\n" +
	"epilogue\r\n";

describe("readMultipart", () => {
	it("streams the exact bytes of each part (RFC 2046 §5.1.1)", async () => {
		expect(await parts(SIGNED, "b1")).toEqual([
			"Content-Type: application/edi-x12\r\n\r\nISA*00*~\r\nGS*IN~\r\n",
			"Content-Type: application/pkcs7-signature\r\n\r\nMIIB\r\n",
		]);
	});

	it("accepts the first delimiter at the very start of the body", async () => {
		expect(await parts("--b\r\nA\r\n--b\r\nB\r\n--b--", "b")).toEqual(["A", "B"]);
	});

	it("accepts transport padding, LF-only line ends and a close delimiter without line end", async () => {
		expect(await parts("--b \t \r\nA\r\n--b\t\nB\n--b--  trailing junk", "b")).toEqual(["A", "B"]);
		expect(await parts("pre\n--b\nA\nline2\n--b--\n", "b")).toEqual(["A\nline2"]);
	});

	it("only the last CRLF before a delimiter belongs to it", async () => {
		expect(await parts("--b\r\n\r\n\r\n--b\r\nx\r\r\n--b\r\n\n\n--b--", "b")).toEqual(["\r\n", "x\r", "\n"]);
	});

	it("reads empty parts", async () => {
		expect(await parts("--b\r\n\r\n--b\r\n\r\n--b--", "b")).toEqual(["", ""]);
	});

	it("`--boundary` followed by other text is data, not a delimiter", async () => {
		expect(await parts("--b\r\nx\r\n--bb\r\ny\r\n--b-\r\n--b x\r\n--b--", "b")).toEqual([
			"x\r\n--bb\r\ny\r\n--b-\r\n--b x",
		]);
	});

	it("reads a nested multipart whose boundary extends the outer one", async () => {
		const inner = "--outer-1\r\n\r\nin\r\n--outer-1--";
		const outer = `--outer\r\nContent-Type: multipart/mixed; boundary=outer-1\r\n\r\n${inner}\r\n--outer--`;
		const [part] = await parts(outer, "outer");
		expect(part).toBe(`Content-Type: multipart/mixed; boundary=outer-1\r\n\r\n${inner}`);
		expect(await parts(part!.slice(part!.indexOf("\r\n\r\n") + 4), "outer-1")).toEqual(["\r\nin"]);
	});

	it("treats the preamble and the boundary text as bytes (latin1 boundary)", async () => {
		expect(await parts("\u00e9--\u00e9\r\n--\u00e9\r\nA\r\n--\u00e9--", "\u00e9")).toEqual(["A"]);
	});

	it("finds delimiters split at every position, in two and three pieces", async () => {
		const body = "pre\r\n--bnd\r\nH: 1\r\n\r\na\r\n--bnd \r\n\r\nb\nb\r\r\n--bnd--\r\nepi";
		const expected = ["H: 1\r\n\r\na", "\r\nb\nb\r"];
		expect(await parts(body, "bnd")).toEqual(expected);
		for (let a = 0; a <= body.length; a++) {
			expect(await parts(body, "bnd", [a])).toEqual(expected);
			for (let b = a; b <= body.length; b++) expect(await parts(body, "bnd", [a, b])).toEqual(expected);
		}
	});

	it("gives the same parts for any chunking (property)", async () => {
		// Parts drawn from an alphabet that makes near-delimiters likely; bodies that happen to
		// contain a real delimiter inside a part are discarded by the independent regex check.
		const alphabet = fc.constantFrom("a", "-", "B", "=", "\r", "\n", " ", "--B", "\r\n--B");
		const content = fc.array(alphabet, { maxLength: 20 }).map((a) => a.join(""));
		const lineEnd = fc.constantFrom("\r\n", "\n");
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.record({ body: content, lineEnd, padding: fc.constantFrom("", " ", "\t ") }), {
					minLength: 1,
					maxLength: 4,
				}),
				fc.option(content.map((p) => `${p}\r\n`)),
				content,
				fc.array(fc.nat(), { maxLength: 8 }),
				async (list, preamble, epilogue, rawCuts) => {
					const boundary = "B";
					let body = preamble ?? "";
					list.forEach((part, i) => {
						body += `${i === 0 ? "" : part.lineEnd}--${boundary}${part.padding}${part.lineEnd}${part.body}`;
					});
					body += `\r\n--${boundary}--${epilogue}`;
					const delimiters = [...`\n${body}`.matchAll(/\n--B(?=--|[ \t]*\r?\n)/g)].length;
					fc.pre(delimiters === list.length + 1);
					fc.pre(list.every((p, i) => !p.body.endsWith("\r") || (list[i + 1]?.lineEnd ?? "\r\n") === "\r\n"));
					fc.pre(!(preamble ?? "").startsWith("--B") && !/\r?\n--B/.test(preamble ?? ""));
					const cuts = rawCuts.map((c) => c % (body.length + 1));
					expect(await parts(body, boundary, cuts)).toEqual(list.map((p) => p.body));
				},
			),
			{ numRuns: 500 },
		);
	});

	it("is MALFORMED_MIME when the boundary never closes", async () => {
		expect(await code(parts("--b\r\nA\r\n--b\r\nB\r\n", "b"))).toBe("MALFORMED_MIME");
		expect(await code(parts("--b\r\nA\r\n--b", "b"))).toBe("MALFORMED_MIME");
		expect(await code(parts("--b\r\nA\r\n--b-", "b"))).toBe("MALFORMED_MIME");
		expect(await code(parts("--b\r\nA", "b"))).toBe("MALFORMED_MIME");
		// the error surfaces from the part being read, after its bytes
		const iterator = readMultipart(pieces(bytes("--b\r\nhello"), [7]), "b")[Symbol.asyncIterator]();
		const first = await iterator.next();
		const seen: string[] = [];
		const failure = code(
			(async () => {
				for await (const chunk of (first.value as { raw: Chunks }).raw) seen.push(text(chunk));
			})(),
		);
		expect(await failure).toBe("MALFORMED_MIME");
		expect(seen.join("")).toBe("hello");
	});

	it("is MALFORMED_MIME without any delimiter, without parts, or with a bad boundary", async () => {
		expect(await code(parts("just some text\r\n-b\r\n", "b"))).toBe("MALFORMED_MIME");
		expect(await code(parts("", "b"))).toBe("MALFORMED_MIME");
		expect(await code(parts("--b--\r\n", "b"))).toBe("MALFORMED_MIME");
		expect(await code(parts("--b\r\n--b--", ""))).toBe("MALFORMED_MIME");
		expect(await code(parts("--b\r\n--b--", "a\r\nb"))).toBe("MALFORMED_MIME");
	});

	it("bounds the preamble, the padding and the number of parts", async () => {
		const preamble = "x".repeat(2000);
		const body = `${preamble}\r\n--b\r\nA\r\n--b--`;
		await expect(
			collectParts(readMultipart(pieces(bytes(body), []), "b", { maxPreambleBytes: 1000 })),
		).rejects.toMatchObject({
			code: "MALFORMED_MIME",
		});
		expect(await collectParts(readMultipart(pieces(bytes(body), []), "b", { maxPreambleBytes: 4000 }))).toEqual(["A"]);
		expect(await code(parts(`--b${" ".repeat(5000)}\r\nA\r\n--b--`, "b"))).toBe("MALFORMED_MIME");
		expect(await parts(`--b${" ".repeat(1000)}\r\nA\r\n--b--`, "b")).toEqual(["A"]);
		const many = `${"--b\r\nx\r\n".repeat(5)}--b--`;
		await expect(collectParts(readMultipart(pieces(bytes(many), []), "b", { maxParts: 4 }))).rejects.toMatchObject({
			code: "MALFORMED_MIME",
		});
		expect(await collectParts(readMultipart(pieces(bytes(many), []), "b", { maxParts: 5 }))).toHaveLength(5);
	});

	it("drains a part the consumer did not finish when the iteration moves on", async () => {
		const body = `--b\r\n${"first ".repeat(100)}\r\n--b\r\nsecond\r\n--b--`;
		const seen: string[] = [];
		for await (const part of readMultipart(pieces(bytes(body), [20, 30, 40, 300]), "b")) {
			if (part.index === 0) {
				for await (const chunk of part.raw) {
					seen.push(text(chunk));
					break;
				}
				continue;
			}
			seen.push(text(await collect(part.raw)));
		}
		expect(seen).toHaveLength(2);
		expect(seen[0]!.length).toBeGreaterThan(0);
		expect(`${"first ".repeat(100)}`.startsWith(seen[0]!)).toBe(true);
		expect(seen[1]).toBe("second");
		const skipped: string[] = [];
		for await (const part of readMultipart(pieces(bytes(body), [7]), "b")) {
			if (part.index === 1) skipped.push(text(await collect(part.raw)));
		}
		expect(skipped).toEqual(["second"]);
	});

	it("a stale part stream yields nothing once the next part is requested", async () => {
		const iterator = readMultipart(pieces(bytes("--b\r\nA\r\n--b\r\nB\r\n--b--"), []), "b")[Symbol.asyncIterator]();
		const first = (await iterator.next()).value!;
		const second = (await iterator.next()).value!;
		expect(text(await collect(first.raw))).toBe("");
		expect(text(await collect(second.raw))).toBe("B");
		expect((await iterator.next()).done).toBe(true);
	});

	it("drains the epilogue and closes the source when the consumer stops early", async () => {
		let finished = false;
		let closed = false;
		async function* source(): Chunks {
			try {
				yield bytes("--b\r\nA\r\n--b\r\nB\r\n--b--\r\n");
				yield bytes("epilogue");
				finished = true;
			} finally {
				closed = true;
			}
		}
		expect(await parts(source(), "b")).toEqual(["A", "B"]);
		expect(finished).toBe(true);
		finished = false;
		closed = false;
		for await (const part of readMultipart(source(), "b")) {
			expect(part.index).toBe(0);
			break;
		}
		expect(finished).toBe(false);
		expect(closed).toBe(true);
	});

	it("streams large parts as views of the input without copying or buffering", async () => {
		const chunkSize = 64 * 1024;
		const count = 64;
		const boundary = multipartBoundary();
		const inputs = new Set<ArrayBufferLike>();
		async function* source(): Chunks {
			yield bytes(`--${boundary}\r\n\r\n`);
			for (let i = 0; i < count; i++) {
				// line breaks and near-delimiters at the chunk ends
				const chunk = new Uint8Array(chunkSize).fill(0x61);
				chunk.set(bytes(`\r\n--${boundary.slice(0, 10)}`), chunkSize - 20);
				chunk.set(bytes("\r\n"), 0);
				inputs.add(chunk.buffer);
				yield chunk;
			}
			yield bytes(`\r\n--${boundary}--\r\n`);
		}
		let total = 0;
		let copied = 0;
		let largest = 0;
		for await (const part of readMultipart(source(), boundary)) {
			for await (const chunk of part.raw) {
				total += chunk.byteLength;
				largest = Math.max(largest, chunk.byteLength);
				if (!inputs.has(chunk.buffer)) copied += chunk.byteLength;
			}
		}
		expect(total).toBe(2 + count * chunkSize);
		expect(largest).toBeLessThanOrEqual(chunkSize);
		expect(copied).toBeLessThanOrEqual(2);
	});

	it("hands each part to readHeaderBlock", async () => {
		const seen: [string | undefined, string][] = [];
		for await (const part of readMultipart(pieces(bytes(SIGNED), [25, 26, 90]), "b1")) {
			const reader = new ByteReader(part.raw);
			const { headers } = await readHeaderBlock(reader);
			seen.push([headers.get("content-type"), text(await collect(reader.rest()))]);
		}
		expect(seen).toEqual([
			["application/edi-x12", "ISA*00*~\r\nGS*IN~\r\n"],
			["application/pkcs7-signature", "MIIB\r\n"],
		]);
	});
});

describe("multipartBoundary", () => {
	it("is fresh, random and survives formatHeaderValue/parseContentType", async () => {
		const a = multipartBoundary();
		const b = multipartBoundary();
		expect(a).toMatch(/^----=_as2kit_[0-9a-f]{32}$/);
		expect(a).not.toBe(b);
		const header = formatHeaderValue("multipart/signed", { boundary: a });
		expect(parseContentType(header).params.boundary).toBe(a);
		expect(await parts(`--${a}\r\nx\r\n--${a}--\r\n`, a)).toEqual(["x"]);
	});
});

async function collectParts(iterable: AsyncIterable<{ raw: Chunks }>): Promise<string[]> {
	const out: string[] = [];
	for await (const part of iterable) out.push(text(await collect(part.raw)));
	return out;
}
