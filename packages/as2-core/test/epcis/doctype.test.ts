import { describe, expect, it } from "vitest";
import { readEpcisEvents, validateEpcis } from "../../src/epcis/index.ts";
import { cpuStopwatch } from "../helpers/cpu-time.ts";

/**
 * Issue #17, "EPCIS as GS1 writes it": 11 of GS1's published example documents (gs1/EPCIS
 * `XML/WithFullCombinationOfFields/*.xml` among them) begin with a bare `<!DOCTYPE project>`.
 * A DOCTYPE with a name only declares nothing (XML 1.0 §2.8): it is accepted and ignored.
 * Every DOCTYPE that could declare something — an internal subset, an external identifier,
 * entity and parameter-entity declarations — and every shape that could hide one stays
 * refused with XML_DOCTYPE_FORBIDDEN.
 */
const XML_DECL = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`;
const ROOT = `<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0" creationDate="2020-01-01T00:00:00Z">`;
const EVENT = `<ObjectEvent><eventTime>2020-01-01T00:00:00Z</eventTime><eventTimeZoneOffset>+00:00</eventTimeZoneOffset><epcList><epc>urn:epc:id:sgtin:0614141.107346.2017</epc></epcList><action>OBSERVE</action></ObjectEvent>`;
const BODY = `<EPCISBody><EventList>${EVENT}</EventList></EPCISBody>`;
const doc = (prolog: string, body = BODY): string => `${prolog}${ROOT}${body}</epcis:EPCISDocument>`;
const NOW = new Date("2024-01-01T00:00:00Z");

async function parseCode(input: Parameters<typeof validateEpcis>[0]): Promise<string | undefined> {
	const result = await validateEpcis(input, { now: NOW, rules: ["schema_compliance"] });
	return result.errors.find((e) => e.rule === "parse")?.code;
}

async function countEvents(input: Parameters<typeof readEpcisEvents>[0]): Promise<number> {
	let n = 0;
	for await (const _ of readEpcisEvents(input)) n++;
	return n;
}

/** A stream of the given chunks that counts the bytes pulled from it. */
function chunked(chunks: Iterable<string>): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
	const it = chunks[Symbol.iterator]();
	const encoder = new TextEncoder();
	let pulled = 0;
	const stream = new ReadableStream<Uint8Array>(
		{
			pull(controller) {
				const next = it.next();
				if (next.done) return controller.close();
				const bytes = encoder.encode(next.value);
				pulled += bytes.byteLength;
				controller.enqueue(bytes);
			},
		},
		{ highWaterMark: 0 },
	);
	return { stream, pulled: () => pulled };
}

describe("epcis DOCTYPE - the bare form GS1 writes is accepted", () => {
	const accepted: [string, string][] = [
		["the GS1-style prolog: XML declaration, then <!DOCTYPE project>", `${XML_DECL}\n<!DOCTYPE project>\n`],
		["without an XML declaration", "<!DOCTYPE project>"],
		["white space of each kind around the name", "<!DOCTYPE\r\n\tproject \t\r\n>"],
		["the root's own name", "<!DOCTYPE epcis:EPCISDocument>"],
		[
			"comments and a processing instruction before and after",
			`${XML_DECL}<!-- a --><?pi x?><!DOCTYPE project><!-- b -->`,
		],
	];
	for (const [name, prolog] of accepted) {
		it(`${name}: valid, its event read`, async () => {
			const xml = doc(prolog);
			const result = await validateEpcis(xml, { now: NOW, rules: ["schema_compliance"] });
			expect(result.errors).toEqual([]);
			expect(result.results.schema_compliance).toBe("passed");
			expect(await countEvents(xml)).toBe(1);
		});
	}

	it("a DOCTYPE cut across stream chunks, one character at a time", async () => {
		const xml = doc(`${XML_DECL}<!DOCTYPE project>`);
		expect(await parseCode(chunked(xml.split("")).stream)).toBeUndefined();
	});

	it("declares no entity: a reference after it is still undefined", async () => {
		expect(
			await parseCode(
				doc("<!DOCTYPE project>", `<EPCISBody><EventList>${EVENT.replace("OBSERVE", "&x;")}</EventList></EPCISBody>`),
			),
		).toBe("XML_UNDEFINED_ENTITY");
	});
});

describe("epcis DOCTYPE - every form that declares or hides something is refused", () => {
	const refused: [string, string][] = [
		["an empty internal subset", "<!DOCTYPE project []>"],
		["an internal subset with an entity (XXE)", `<!DOCTYPE project [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`],
		["an internal general entity", `<!DOCTYPE project [<!ENTITY x "y">]>`],
		["a parameter entity", `<!DOCTYPE project [<!ENTITY % p SYSTEM "http://127.0.0.1/evil.dtd"> %p;]>`],
		[
			"billion laughs",
			`<!DOCTYPE d [<!ENTITY l0 "lol">${Array.from({ length: 10 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join("")}]>`,
		],
		["an external identifier, SYSTEM", `<!DOCTYPE project SYSTEM "http://127.0.0.1/p.dtd">`],
		["an external identifier, PUBLIC", `<!DOCTYPE project PUBLIC "-//X//DTD P//EN" "p.dtd">`],
		["SYSTEM with a '>' inside its literal", `<!DOCTYPE project SYSTEM "a>b">`],
		["a comment inside", "<!DOCTYPE project <!-- x -->>"],
		["a processing instruction inside", "<!DOCTYPE project <?x y?>>"],
		["no name", "<!DOCTYPE >"],
		["no space before the name", "<!DOCTYPEproject>"],
		["a no-break space for white space", "<!DOCTYPE\u00a0project>"],
		["a form feed for white space", "<!DOCTYPE\fproject>"],
		["a name that is not an XML name", "<!DOCTYPE %p;>"],
		["lower case", "<!doctype project>"],
		["a second DOCTYPE", "<!DOCTYPE project><!DOCTYPE project>"],
		["an entity declaration outside a DOCTYPE", `<!ENTITY x "y">`],
		["an unterminated DOCTYPE", "<!DOCTYPE project"],
	];
	for (const [name, prolog] of refused) {
		it(name, async () => {
			const xml = prolog === "<!DOCTYPE project" ? prolog : doc(prolog);
			expect(await parseCode(xml)).toBe("XML_DOCTYPE_FORBIDDEN");
		});
	}

	it("a bare DOCTYPE after the start of the root, or after the root", async () => {
		expect(await parseCode(doc("", `<!DOCTYPE project>${BODY}`))).toBe("XML_DOCTYPE_FORBIDDEN");
		expect(await parseCode(`${doc("")}<!DOCTYPE project>`)).toBe("XML_DOCTYPE_FORBIDDEN");
	});

	it("a DOCTYPE with an endless name is refused after 1 KB, without reading the rest (linear, bounded)", async () => {
		const { stream, pulled } = chunked(
			(function* () {
				yield "<!DOCTYPE ";
				for (let i = 0; i < 100_000; i++) yield "a".repeat(1024);
			})(),
		);
		const cpuMs = cpuStopwatch();
		expect(await parseCode(stream)).toBe("XML_DOCTYPE_FORBIDDEN");
		// 100 MB on offer: a handful of chunks read, in a few ms (500 ms is a wide margin).
		expect(pulled()).toBeLessThan(64 * 1024);
		expect(cpuMs()).toBeLessThan(500);
	});

	it("1 MB of blanks inside a DOCTYPE is refused at once (linear)", async () => {
		const cpuMs = cpuStopwatch();
		expect(await parseCode(doc(`<!DOCTYPE${" ".repeat(1024 * 1024)}project>`))).toBe("XML_DOCTYPE_FORBIDDEN");
		expect(cpuMs()).toBeLessThan(500);
	});
});
