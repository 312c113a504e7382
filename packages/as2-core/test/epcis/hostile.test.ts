import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readEpcisEvents, validateEpcis } from "../../src/epcis/index.ts";
import { errorCode } from "../helpers/error-code.ts";
import { CORPUS_FILES, readCorpus } from "./corpus.ts";

const ROOT = `<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0" creationDate="2020-01-01T00:00:00Z">`;
const EVENT = `<ObjectEvent><eventTime>2020-01-01T00:00:00Z</eventTime><eventTimeZoneOffset>+00:00</eventTimeZoneOffset><action>OBSERVE</action></ObjectEvent>`;
const doc = (events: string): string =>
	`${ROOT}<EPCISBody><EventList>${events}</EventList></EPCISBody></epcis:EPCISDocument>`;

async function parseFailure(input: Parameters<typeof validateEpcis>[0]): Promise<string> {
	const result = await validateEpcis(input, { now: new Date("2024-01-01T00:00:00Z") });
	expect(result.valid).toBe(false);
	expect(Object.values(result.results).every((r) => r === "failed")).toBe(true);
	const parse = result.errors.find((e) => e.rule === "parse");
	expect(parse).toBeDefined();
	return parse!.code;
}

/** A stream that counts what was pulled from it, to prove the parser stopped early. */
function counted(chunks: () => Generator<string>): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
	let pulled = 0;
	const encoder = new TextEncoder();
	const it = chunks();
	const stream = new ReadableStream<Uint8Array>(
		{
			pull(controller) {
				const next = it.next();
				if (next.done) controller.close();
				else {
					const bytes = encoder.encode(next.value);
					pulled += bytes.byteLength;
					controller.enqueue(bytes);
				}
			},
		},
		{ highWaterMark: 0 },
	);
	return { stream, pulled: () => pulled };
}

describe("epcis hostile input - a clean result, never a crash", () => {
	it("external entity (XXE): DOCTYPE refused before anything is resolved", async () => {
		const xxe = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${doc(`<ObjectEvent>&xxe;</ObjectEvent>`)}`;
		expect(await parseFailure(xxe)).toBe("XML_DOCTYPE_FORBIDDEN");
		expect(await errorCode(collect(readEpcisEvents(xxe)))).toBe("EPCIS_PARSE_ERROR");
	});

	it("billion laughs: DOCTYPE refused, nothing expanded", async () => {
		const entities = Array.from({ length: 10 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join("");
		const bomb = `<!DOCTYPE d [<!ENTITY l0 "lol">${entities}]>${doc(`<ObjectEvent>&l10;</ObjectEvent>`)}`;
		expect(await parseFailure(bomb)).toBe("XML_DOCTYPE_FORBIDDEN");
	});

	it("an entity reference without a declaration is an undefined entity", async () => {
		expect(await parseFailure(doc(`<ObjectEvent a="&xxe;"/>`))).toBe("XML_UNDEFINED_ENTITY");
		expect(await parseFailure(doc(`<ObjectEvent>&xxe;</ObjectEvent>`))).toBe("XML_UNDEFINED_ENTITY");
		expect(await parseFailure(doc(`<ObjectEvent>&#0;</ObjectEvent>`))).toBe("XML_NOT_WELL_FORMED");
	});

	it("10,000-deep nesting: stopped at maxDepth", async () => {
		const deep = doc(`${"<a>".repeat(10_000)}${"</a>".repeat(10_000)}`);
		expect(await parseFailure(deep)).toBe("XML_LIMIT_EXCEEDED");
		const { stream, pulled } = counted(function* () {
			yield `${ROOT}<EPCISBody><EventList>`;
			for (let i = 0; i < 10_000; i++) yield "<example:x xmlns:example='urn:x'>".repeat(10);
		});
		expect(await parseFailure(stream)).toBe("XML_LIMIT_EXCEEDED");
		expect(pulled()).toBeLessThan(1024 * 1024);
	});

	it("100 MB attribute: cut off at maxAttributeLength without reading the rest", async () => {
		const block = "A".repeat(64 * 1024);
		const { stream, pulled } = counted(function* () {
			yield `${ROOT}<EPCISBody><EventList><ObjectEvent note="`;
			for (let i = 0; i < 1600; i++) yield block;
			yield `"/></EventList></EPCISBody></epcis:EPCISDocument>`;
		});
		expect(await parseFailure(stream)).toBe("XML_LIMIT_EXCEEDED");
		expect(pulled()).toBeLessThan(2 * 1024 * 1024);
	});

	it("100 MB text node and a long run without markup: cut off at maxTextLength", async () => {
		const block = "B".repeat(64 * 1024);
		const { stream, pulled } = counted(function* () {
			yield `${ROOT}<EPCISBody><EventList><ObjectEvent><eventTime>`;
			for (let i = 0; i < 1600; i++) yield block;
		});
		expect(await parseFailure(stream)).toBe("XML_LIMIT_EXCEEDED");
		expect(pulled()).toBeLessThan(3 * 1024 * 1024);
	});

	it("too many attributes, too many events, an oversized event: each a limit", async () => {
		const attributes = Array.from({ length: 100 }, (_, i) => ` a${i}="1"`).join("");
		expect(await parseFailure(doc(`<ObjectEvent${attributes}/>`))).toBe("XML_LIMIT_EXCEEDED");
		const many = await validateEpcis(doc(EVENT.repeat(11)), { limits: { maxEvents: 10 } });
		expect(many.errors.map((e) => e.code)).toContain("XML_LIMIT_EXCEEDED");
		const big = await validateEpcis(doc(`<ObjectEvent>${"<x:y xmlns:x='u'/>".repeat(1000)}</ObjectEvent>`), {
			limits: { maxEventLength: 4096 },
		});
		expect(big.errors.map((e) => e.code)).toContain("XML_LIMIT_EXCEEDED");
	});

	it("malformed XML gives a parse issue with line and column", async () => {
		const cases: [string, string][] = [
			["", "XML_NOT_WELL_FORMED"],
			["not xml at all", "XML_NOT_WELL_FORMED"],
			[`${ROOT}<EPCISBody>`, "XML_NOT_WELL_FORMED"],
			[doc("<ObjectEvent></objectEvent>"), "XML_NOT_WELL_FORMED"],
			[doc('<ObjectEvent a="1" a="2"/>'), "XML_NOT_WELL_FORMED"],
			[doc("<p:ObjectEvent/>"), "XML_NAMESPACE_ERROR"],
			[`${doc("")}<extra/>`, "XML_NOT_WELL_FORMED"],
			[`<?xml version="1.0" encoding="ISO-8859-1"?>${doc("")}`, "XML_ENCODING_UNSUPPORTED"],
			[`${doc("")}<?xml version="1.0"?>`, "XML_NOT_WELL_FORMED"],
		];
		for (const [xml, code] of cases) {
			const result = await validateEpcis(xml);
			const parse = result.errors.find((e) => e.rule === "parse");
			expect({ xml, code: parse?.code }).toEqual({ xml, code });
			expect(parse?.line).toBeGreaterThan(0);
			expect(parse?.column).toBeGreaterThan(0);
		}
		expect(await parseFailure(new Uint8Array([0x3c, 0x61, 0xff, 0xfe, 0x3e]))).toBe("XML_ENCODING_UNSUPPORTED");
	});

	it("a parse error is reported where it is: line and column", async () => {
		const result = await validateEpcis(`${ROOT}\n<EPCISBody>\n  <EventList>\n    <ObjectEvent>\n  </EventList>`);
		const parse = result.errors.find((e) => e.rule === "parse")!;
		expect({ line: parse.line, column: parse.column }).toEqual({ line: 5, column: 3 });
	});

	it("a root that is not EPCIS is a parse-level failure, not a crash", async () => {
		expect(await parseFailure("<html><body/></html>")).toBe("EPCIS_NOT_A_DOCUMENT");
		expect(await errorCode(collect(readEpcisEvents("<html/>")))).toBe("EPCIS_PARSE_ERROR");
	});

	it("fuzz: truncated, spliced and garbled corpus documents never throw", async () => {
		const docs = CORPUS_FILES.map(readCorpus);
		await fc.assert(
			fc.asyncProperty(
				fc.nat(docs.length - 1),
				fc.nat(),
				fc.nat(),
				fc.string({
					maxLength: 8,
					unit: fc.constantFrom("<", ">", "&", "/", "'", '"', "=", "!", "?", "[", "]", "a", ":", " ", "\u0000", "é"),
				}),
				async (i, cut, cut2, junk) => {
					const xml = docs[i]!;
					const a = cut % (xml.length + 1);
					const b = a + (cut2 % 40);
					const mangled = xml.slice(0, a) + junk + xml.slice(Math.min(b, xml.length));
					const result = await validateEpcis(mangled, { now: new Date("2024-01-01T00:00:00Z") });
					expect(typeof result.valid).toBe("boolean");
					expect(await errorCode(collect(readEpcisEvents(mangled)))).toMatch(/^(no error|EPCIS_PARSE_ERROR)$/);
				},
			),
			{ numRuns: Number(process.env.EPCIS_FUZZ_RUNS ?? 500), seed: Number(process.env.EPCIS_FUZZ_SEED ?? 7) },
		);
	});
});

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
	const out: T[] = [];
	for await (const e of events) out.push(e);
	return out;
}
