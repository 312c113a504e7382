import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { validateEpcis } from "../../src/epcis/index.ts";
import { ensureXmllint, XSD, xmllintValidates } from "../helpers/xmllint.ts";

/**
 * Issue #17, "EPCIS as GS1 writes it": documents written for as2kit in the shapes of GS1's
 * published examples (fixtures/epcis/gs1-style/, see its README for the shapes they mirror and
 * why they are not copies) against `xmllint --noout --schema` with the GS1 XSDs. Our
 * schema_compliance verdict must be xmllint's on each document, and on each with one required
 * element removed.
 */
const DIR = fileURLToPath(new URL("../fixtures/epcis/gs1-style/", import.meta.url));
const EXAMPLES = readdirSync(DIR, { recursive: true, encoding: "utf8" })
	.filter((f) => f.endsWith(".xml"))
	.sort()
	.map((name) => ({ name, xml: readFileSync(`${DIR}${name}`, "utf8") }));

/** Elements the XSDs require where they occur: the first occurrence of each is removed in turn. */
const REQUIRED = ["eventTime", "eventTimeZoneOffset", "action", "epcClass", "id"];

const schemaVerdict = async (xml: string): Promise<boolean> =>
	(await validateEpcis(xml, { rules: ["schema_compliance"] })).results.schema_compliance === "passed";

/** The judge's schema by the root element's namespace (`…:xsd:1` is EPCIS 1.x, `…:xsd:2` is 2.0). */
function xsdFor(xml: string): string {
	const root = /<(?:([A-Za-z_][\w.-]*):)?EPCISDocument\b[^>]*>/.exec(xml);
	const binding = root && new RegExp(`xmlns${root[1] ? `:${root[1]}` : ""}\\s*=\\s*"([^"]*)"`).exec(root[0]);
	return binding?.[1] === "urn:epcglobal:epcis:xsd:2" ? XSD["2.0"] : XSD["1.2"];
}

/** Both verdicts for each document, xmllint's in one run per schema. */
async function verdicts(documents: readonly string[]): Promise<{ ours: boolean; xmllint: boolean }[]> {
	const judged = new Map<number, boolean>();
	const byXsd = new Map<string, number[]>();
	for (const [i, xml] of documents.entries()) {
		const xsd = xsdFor(xml);
		byXsd.set(xsd, [...(byXsd.get(xsd) ?? []), i]);
	}
	for (const [xsd, indexes] of byXsd) {
		const results = xmllintValidates(
			xsd,
			indexes.map((i) => documents[i]!),
		);
		for (const [k, i] of indexes.entries()) judged.set(i, results[k]!);
	}
	return Promise.all(documents.map(async (xml, i) => ({ ours: await schemaVerdict(xml), xmllint: judged.get(i)! })));
}

/** The document without the first `<name>…</name>` (a leaf element) and the white space before it. */
function withoutFirst(xml: string, name: string): string | null {
	const match = new RegExp(`\\s*<${name}>[^<]*</${name}>`).exec(xml);
	return match ? xml.slice(0, match.index) + xml.slice(match.index + match[0].length) : null;
}

beforeAll(() => ensureXmllint());

describe("epcis GS1-style documents - differential against xmllint", () => {
	it("the GS1-style documents are there, bare DOCTYPEs among them", () => {
		expect(EXAMPLES.length).toBeGreaterThanOrEqual(10);
		expect(EXAMPLES.filter((e) => e.xml.includes("<!DOCTYPE project>")).length).toBeGreaterThanOrEqual(3);
	});

	it("agrees with xmllint on every GS1-style document", async () => {
		const results = await verdicts(EXAMPLES.map((e) => e.xml));
		const disagreements = results
			.map((r, i) => ({ ...r, name: EXAMPLES[i]!.name }))
			.filter((r) => r.ours !== r.xmllint)
			.map((r) => `${r.name}: xmllint ${r.xmllint ? "valid" : "invalid"}, ours ${r.ours ? "valid" : "invalid"}`);
		expect(disagreements).toEqual([]);
		// Both verdicts occur, or agreement would prove little.
		expect(results.filter((r) => r.xmllint).length).toBeGreaterThan(results.length / 2);
		expect(results.some((r) => !r.xmllint)).toBe(true);
	});

	it("every GS1-style document that begins with <!DOCTYPE project> is valid, for xmllint and for us (was XML_DOCTYPE_FORBIDDEN)", async () => {
		const bare = EXAMPLES.filter((e) => e.xml.includes("<!DOCTYPE project>"));
		const results = await verdicts(bare.map((e) => e.xml));
		expect(results.map((r, i) => `${bare[i]!.name}: ${r.xmllint}/${r.ours}`)).toEqual(
			bare.map((e) => `${e.name}: true/true`),
		);
	});

	it("agrees with xmllint on every GS1-style document with one required element removed", async () => {
		const mutants: { name: string; xml: string }[] = [];
		for (const example of EXAMPLES) {
			for (const element of REQUIRED) {
				const xml = withoutFirst(example.xml, element);
				if (xml !== null) mutants.push({ name: `${example.name} without <${element}>`, xml });
			}
		}
		const results = await verdicts(mutants.map((m) => m.xml));
		const disagreements = mutants
			.filter((_, i) => results[i]!.ours !== results[i]!.xmllint)
			.map((m, i) => `${m.name}: xmllint ${results[i]!.xmllint ? "valid" : "invalid"}`);
		expect(disagreements).toEqual([]);
		// Each removal breaks the schema: xmllint finds every mutant invalid.
		expect(mutants.length).toBeGreaterThanOrEqual(EXAMPLES.length * 3);
		expect(mutants.filter((_, i) => results[i]!.xmllint).map((m) => m.name)).toEqual([]);
	}, 120_000);

	// Where we differ from xmllint, on purpose. xmllint reads a DOCTYPE's internal subset and
	// expands its entities before it validates, so for it an internal subset is no error.
	// We refuse every DOCTYPE that can declare something (XXE, billion laughs): the
	// document is a parse failure, so schema_compliance fails.
	it("differs on purpose: an internal subset xmllint accepts is refused (XXE, entity expansion)", async () => {
		const example = EXAMPLES.find((e) => e.xml.includes("<!DOCTYPE project>"))!;
		const subsets = [
			example.xml.replace("<!DOCTYPE project>", "<!DOCTYPE project []>"),
			example.xml.replace("<!DOCTYPE project>", `<!DOCTYPE project [<!ENTITY shipping "OBSERVE">]>`),
		];
		const results = await verdicts(subsets);
		expect(results).toEqual([
			{ ours: false, xmllint: true },
			{ ours: false, xmllint: true },
		]);
		const parse = (await validateEpcis(subsets[1]!)).errors.find((e) => e.rule === "parse");
		expect(parse?.code).toBe("XML_DOCTYPE_FORBIDDEN");
	});
});
