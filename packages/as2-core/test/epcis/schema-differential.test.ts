import fc from "fast-check";
import { XMLBuilder, XMLParser } from "fast-xml-parser";
import { beforeAll, describe, expect, it } from "vitest";
import { validateEpcis } from "../../src/epcis/index.ts";
import { ensureXmllint, XSD, xmllintValidates } from "../helpers/xmllint.ts";
import { CORPUS_FILES, readCorpus } from "./corpus.ts";

/**
 * schema_compliance against `xmllint --noout --schema` with the GS1 XSDs: over the corpus,
 * and over corpus documents mutated at random (elements dropped, duplicated, swapped,
 * renamed or inserted; values, attributes and text changed). Our verdict must be xmllint's.
 */
const schemaVerdict = async (xml: string): Promise<boolean> =>
	(await validateEpcis(xml, { rules: ["schema_compliance"] })).results.schema_compliance === "passed";

/** The judge's schema by corpus file name: 12-… is EPCIS 1.2, 20-… is 2.0; the query document has its own. */
const xsdFor = (file: string): string => {
	if (file.includes("query")) return file.startsWith("12-") ? XSD["query-1.2"] : XSD["query-2.0"];
	return file.startsWith("12-") ? XSD["1.2"] : XSD["2.0"];
};

/** EPCIS_DIFF_RUNS / EPCIS_DIFF_SEED widen the search locally; CI runs the fixed default. */
const RUNS = Number(process.env.EPCIS_DIFF_RUNS ?? 400);
const SEED = process.env.EPCIS_DIFF_SEED === undefined ? undefined : Number(process.env.EPCIS_DIFF_SEED);

beforeAll(() => ensureXmllint());

describe("epcis schema_compliance - differential against xmllint", () => {
	it("agrees with xmllint on every corpus document", async () => {
		const disagreements: string[] = [];
		for (const file of CORPUS_FILES) {
			const xml = readCorpus(file);
			const [judge] = xmllintValidates(xsdFor(file), [xml]);
			if ((await schemaVerdict(xml)) !== judge) disagreements.push(`${file}: xmllint ${judge ? "valid" : "invalid"}`);
		}
		expect(disagreements).toEqual([]);
	});

	for (const version of ["1.2", "2.0"] as const) {
		it(`agrees with xmllint on mutated EPCIS ${version} documents`, async () => {
			const prefix = version === "1.2" ? "12-" : "20-";
			const pool = CORPUS_FILES.filter((f) => f.startsWith(prefix) && !f.includes("query")).map(readCorpus);
			let agreed = 0;
			let valid = 0;
			await fc.assert(
				fc.asyncProperty(
					fc.integer({ min: 0, max: pool.length - 1 }),
					fc.array(mutation, { minLength: 1, maxLength: 3 }),
					async (seed, mutations) => {
						const xml = mutate(pool[seed]!, mutations);
						const [judge] = xmllintValidates(XSD[version], [xml]);

						const ours = await schemaVerdict(xml);
						expect({ ours, xml }).toEqual({ ours: judge, xml });
						agreed++;
						if (judge) valid++;
					},
				),
				{ numRuns: RUNS, seed: SEED ?? (version === "1.2" ? 0x1e2 : 0x2e0) },
			);
			expect(agreed).toBeGreaterThanOrEqual(RUNS);
			// Both verdicts must be exercised, or the property proves little.
			expect(valid).toBeGreaterThan(agreed / 10);
			expect(valid).toBeLessThan(agreed * 0.9);
			console.log(`EPCIS ${version}: ${agreed} mutated documents, ${valid} valid per xmllint, no disagreement`);
		}, 120_000);
	}
});

// Mutations on fast-xml-parser's ordered tree, written back with its builder.
type Node = Record<string, unknown>;
const OPTIONS = {
	preserveOrder: true,
	ignoreAttributes: false,
	attributeNamePrefix: "",
	processEntities: false,
	trimValues: false,
	parseTagValue: false,
	parseAttributeValue: false,
	commentPropName: "#comment",
	suppressEmptyNode: true,
} as const;
const parser = new XMLParser(OPTIONS);
const builder = new XMLBuilder(OPTIONS);

const VALUES = [
	"",
	" ",
	"ADD",
	"add",
	" OBSERVE",
	"DELETE",
	"2005-04-03T20:33:31Z",
	"2005-04-03T20:33:31",
	"2005-02-29T20:33:31Z",
	"2004-02-29T24:00:00Z",
	" 2020-01-01T00:00:00+14:00 ",
	"2020-01-01T00:00:00-14:01",
	"1",
	"-1.5",
	"1e3",
	"1.",
	".5",
	"1111111111111111111111111",
	"urn:epc:id:sgtin:0614141.107346.2017",
	"a b",
	"%zz",
	"a#b#c",
	"1abc:x",
	"http://[::1",
	"https://id.gs1.org/01/09521141123454/21/1",
	"true",
	"yes",
	"INF",
	"abc",
];
const NAMES = [
	"epcList",
	"action",
	"bizStep",
	"eventID",
	"extension",
	"baseExtension",
	"quantity",
	"uom",
	"ilmd",
	"readPoint",
	"id",
	"sensorElementList",
	"TransformationEvent",
	"AssociationEvent",
	"QuantityEvent",
	"certificationInfo",
	"example:note",
	"sbdh:HeaderVersion",
	"epcis:ObjectEvent",
	"foo",
];
const SNIPPETS = [
	"<example:x>1</example:x>",
	"<extension/>",
	"<extension><example:y/></extension>",
	"<eventID>urn:uuid:1</eventID>",
	"<foo/>",
	"<bizStep>urn:epcglobal:cbv:bizstep:shipping</bizStep>",
	"<sbdh:StandardBusinessDocumentHeader/>",
	"<quantity xsi:nil='true'/>",
	"<![CDATA[x]]>",
	"<!-- a comment -->",
	"text",
];
const ATTRIBUTES: [string, string][] = [
	["type", "urn:x"],
	["foo", "1"],
	["example:a", "1"],
	["xsi:nil", "true"],
	["value", "warm"],
	["schemaVersion", "x"],
	["creationDate", "2020-13-01T00:00:00Z"],
	["id", "a b"],
	["xmlns", "urn:epcglobal:epcis:xsd:1"],
	["xmlns", "urn:epcglobal:epcis:xsd:2"],
	["xmlns", "http://ns.example.com/mutation"],
	["xmlns", ""],
	["xmlns:example", "urn:epcglobal:epcis:xsd:2"],
];

type Mutation =
	| { op: "drop" | "duplicate" | "swap"; at: number }
	| { op: "rename"; at: number; name: number }
	| { op: "value"; at: number; value: number }
	| { op: "attribute"; at: number; attribute: number }
	| { op: "removeAttributes"; at: number }
	| { op: "insert"; at: number; snippet: number };

const at = fc.nat(10_000);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
	fc.record({ op: fc.constantFrom("drop" as const, "duplicate" as const, "swap" as const), at }),
	fc.record({ op: fc.constant("rename" as const), at, name: fc.nat(NAMES.length - 1) }),
	fc.record({ op: fc.constant("value" as const), at, value: fc.nat(VALUES.length - 1) }),
	fc.record({ op: fc.constant("attribute" as const), at, attribute: fc.nat(ATTRIBUTES.length - 1) }),
	fc.record({ op: fc.constant("removeAttributes" as const), at }),
	fc.record({ op: fc.constant("insert" as const), at, snippet: fc.nat(SNIPPETS.length - 1) }),
);

const nameOf = (node: Node): string | undefined => Object.keys(node).find((k) => k !== ":@" && !k.startsWith("#"));

/** Every element below the root: its parent's child array and its index there. */
function elements(root: Node[]): { siblings: Node[]; index: number; node: Node }[] {
	const out: { siblings: Node[]; index: number; node: Node }[] = [];
	const walk = (list: Node[]): void => {
		list.forEach((node, index) => {
			const name = nameOf(node);
			if (!name || name.startsWith("?")) return;
			out.push({ siblings: list, index, node });
			walk(node[name] as Node[]);
		});
	};
	for (const top of root) {
		const name = nameOf(top);
		if (name && !name.startsWith("?")) walk(top[name] as Node[]);
	}
	return out;
}

function mutate(xml: string, mutations: Mutation[]): string {
	const tree = parser.parse(xml) as Node[];
	const root = tree.find((n) => nameOf(n) && !nameOf(n)!.startsWith("?"))!;
	const attrs = (root[":@"] ?? {}) as Record<string, string>;
	attrs["xmlns:example"] ??= "http://ns.example.com/mutation";
	attrs["xmlns:xsi"] ??= "http://www.w3.org/2001/XMLSchema-instance";
	attrs["xmlns:sbdh"] ??= "http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader";
	root[":@"] = attrs;
	for (const m of mutations) {
		const all = elements(tree);
		if (all.length === 0) break;
		const { siblings, index, node } = all[m.at % all.length]!;
		const name = nameOf(node)!;
		switch (m.op) {
			case "drop":
				siblings.splice(index, 1);
				break;
			case "duplicate":
				siblings.splice(index, 0, structuredClone(node));
				break;
			case "swap": {
				const next = siblings.findIndex((n, i) => i > index && nameOf(n) !== undefined);
				if (next > 0) [siblings[index], siblings[next]] = [siblings[next]!, siblings[index]!];
				break;
			}
			case "rename": {
				const renamed: Node = { [NAMES[m.name]!]: node[name] };
				if (node[":@"]) renamed[":@"] = node[":@"];
				siblings[index] = renamed;
				break;
			}
			case "value":
				node[name] = [{ "#text": VALUES[m.value]!.replaceAll("&", "&amp;").replaceAll("<", "&lt;") }];
				break;
			case "attribute": {
				const [k, v] = ATTRIBUTES[m.attribute]!;
				node[":@"] = { ...((node[":@"] as Record<string, string>) ?? {}), [k]: v };
				break;
			}
			case "removeAttributes":
				delete node[":@"];
				break;
			case "insert": {
				const children = node[name] as Node[];
				const inserted = parser.parse(
					`<w xmlns:example="e" xmlns:sbdh="s" xmlns:xsi="x">${SNIPPETS[m.snippet]}</w>`,
				) as Node[];
				const parts = (inserted[0]!.w as Node[]) ?? [];
				children.splice(m.at % (children.length + 1), 0, ...parts);
				break;
			}
		}
	}
	return builder.build(tree) as string;
}
