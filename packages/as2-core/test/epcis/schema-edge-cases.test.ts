import { beforeAll, describe, expect, it } from "vitest";
import { validateEpcis } from "../../src/epcis/index.ts";
import { ensureXmllint, XSD, xmllintValidates } from "../helpers/xmllint.ts";

/** Namespace, lexical and wildcard corners, each judged by xmllint as well as by us. */
const SBDH = `<sbdh:StandardBusinessDocumentHeader xmlns:sbdh="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader"><sbdh:HeaderVersion>1.0</sbdh:HeaderVersion><sbdh:Sender><sbdh:Identifier>s</sbdh:Identifier></sbdh:Sender><sbdh:Receiver><sbdh:Identifier>r</sbdh:Identifier></sbdh:Receiver><sbdh:DocumentIdentification><sbdh:Standard>EPCglobal</sbdh:Standard><sbdh:TypeVersion>1.0</sbdh:TypeVersion><sbdh:InstanceIdentifier>1</sbdh:InstanceIdentifier><sbdh:Type>Events</sbdh:Type><sbdh:CreationDateAndTime>2020-01-01T00:00:00Z</sbdh:CreationDateAndTime></sbdh:DocumentIdentification></sbdh:StandardBusinessDocumentHeader>`;

function doc(
	version: "1.2" | "2.0",
	event: string,
	options: { root?: string; header?: string; after?: string } = {},
): string {
	const ns = version === "1.2" ? "urn:epcglobal:epcis:xsd:1" : "urn:epcglobal:epcis:xsd:2";
	const root = options.root ?? `epcis:EPCISDocument xmlns:epcis="${ns}"`;
	const name = root.split(" ")[0];
	return `<?xml version="1.0"?>\n<${root} xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" schemaVersion="${version}" creationDate="2020-01-01T00:00:00Z">${options.header ?? ""}<EPCISBody><EventList>${event}</EventList></EPCISBody>${options.after ?? ""}</${name}>`;
}
/** The version argument only documents which document a case builds. */
const object = (
	_version: "1.2" | "2.0",
	action = "ADD",
	extra = "",
	epcs = "<epc>urn:epc:id:sgtin:0614141.107346.1</epc>",
): string =>
	`<ObjectEvent><eventTime>2020-01-01T00:00:00Z</eventTime><eventTimeZoneOffset>+00:00</eventTimeZoneOffset><epcList>${epcs}</epcList><action>${action}</action>${extra}</ObjectEvent>`;

const CASES: [string, "1.2" | "2.0", string][] = [
	[
		"prefix other than epcis",
		"2.0",
		doc("2.0", object("2.0"), { root: `x:EPCISDocument xmlns:x="urn:epcglobal:epcis:xsd:2"` }),
	],
	[
		"default namespace on the root only",
		"1.2",
		doc("1.2", object("1.2"), { root: `EPCISDocument xmlns="urn:epcglobal:epcis:xsd:1"` }),
	],
	[
		"default namespace undone on the body",
		"1.2",
		doc("1.2", object("1.2"), { root: `EPCISDocument xmlns="urn:epcglobal:epcis:xsd:1"` }).replace(
			"<EPCISBody>",
			`<EPCISBody xmlns="">`,
		),
	],
	[
		"event in the EPCIS namespace",
		"2.0",
		doc(
			"2.0",
			object("2.0").replace("<ObjectEvent>", "<epcis:ObjectEvent>").replace("</ObjectEvent>", "</epcis:ObjectEvent>"),
		),
	],
	[
		"extension element in a default namespace",
		"2.0",
		doc("2.0", object("2.0", "ADD", `<note xmlns="urn:example">x</note>`)),
	],
	["character reference in the action", "2.0", doc("2.0", object("2.0", "&#x41;DD"))],
	["comment inside the action", "2.0", doc("2.0", object("2.0", "AD<!-- x -->D"))],
	["CDATA action", "2.0", doc("2.0", object("2.0", "<![CDATA[ADD]]>"))],
	["CDATA between elements", "2.0", doc("2.0", object("2.0").replace("<action>", "<![CDATA[]]><action>"))],
	["padded action", "2.0", doc("2.0", object("2.0", " ADD "))],
	[
		"padded URI",
		"1.2",
		doc("1.2", object("1.2", "ADD", "<bizStep>\n urn:epcglobal:cbv:bizstep:shipping \n</bizStep>")),
	],
	[
		"xsi:type naming the declared type",
		"2.0",
		doc(
			"2.0",
			object("2.0").replace(
				"<ObjectEvent>",
				`<ObjectEvent xmlns:e="urn:epcglobal:epcis:xsd:2" xsi:type="e:ObjectEventType">`,
			),
		),
	],
	[
		"xsi:schemaLocation anywhere",
		"1.2",
		doc("1.2", object("1.2").replace("<epcList>", `<epcList xsi:schemaLocation="urn:x x.xsd">`)),
	],
	[
		"xsi:nil on a quantity",
		"2.0",
		doc(
			"2.0",
			object(
				"2.0",
				"ADD",
				`<quantityList><quantityElement><epcClass>urn:x</epcClass><quantity xsi:nil="true"/><uom>KGM</uom></quantityElement></quantityList>`,
			),
		),
	],
	[
		"uom without quantity",
		"2.0",
		doc(
			"2.0",
			object(
				"2.0",
				"ADD",
				`<quantityList><quantityElement><epcClass>urn:x</epcClass><uom>KGM</uom></quantityElement></quantityList>`,
			),
		),
	],
	[
		"1.2 header with SBDH and a foreign element",
		"1.2",
		doc("1.2", object("1.2"), { header: `<EPCISHeader>${SBDH}<x:y xmlns:x="urn:x"/></EPCISHeader>` }),
	],
	[
		"2.0 header with a foreign element",
		"2.0",
		doc("2.0", object("2.0"), { header: `<EPCISHeader>${SBDH}<x:y xmlns:x="urn:x"/></EPCISHeader>` }),
	],
	["2.0 empty header", "2.0", doc("2.0", object("2.0"), { header: "<EPCISHeader/>" })],
	["1.2 empty header", "1.2", doc("1.2", object("1.2"), { header: "<EPCISHeader/>" })],
	[
		"SBDH validated inside a lax extension",
		"2.0",
		doc(
			"2.0",
			object(
				"2.0",
				"ADD",
				`<x:w xmlns:x="urn:x">${SBDH.replace("<sbdh:HeaderVersion>1.0</sbdh:HeaderVersion>", "")}</x:w>`,
			),
		),
	],
	["empty EventList", "2.0", doc("2.0", "")],
	["empty EPCISBody", "1.2", doc("1.2", "").replace("<EventList></EventList>", "")],
	[
		"document-level extension after the body",
		"1.2",
		doc("1.2", object("1.2"), { after: `<extension><anything/></extension><x:y xmlns:x="urn:x"/>` }),
	],
	[
		"1.2 EventList/extension/extension with unqualified content",
		"1.2",
		doc("1.2", `<extension><extension><Future/></extension></extension>`),
	],
	["2.0 EventList/extension with foreign content", "2.0", doc("2.0", `<extension><x:y xmlns:x="urn:x"/></extension>`)],
	[
		"unknown attribute on the root",
		"2.0",
		doc("2.0", object("2.0")).replace("schemaVersion=", `x:a="1" xmlns:x="urn:x" schemaVersion=`),
	],
	[
		"schemaVersion not a decimal",
		"2.0",
		doc("2.0", object("2.0")).replace(`schemaVersion="2.0"`, `schemaVersion="2.0.1"`),
	],
	[
		"2.0 ErrorDeclaration any order",
		"2.0",
		doc(
			"2.0",
			object("2.0").replace(
				"<epcList>",
				`<errorDeclaration><reason>urn:x</reason><declarationTime>2020-01-02T00:00:00Z</declarationTime></errorDeclaration><epcList>`,
			),
		),
	],
	[
		"2.0 sensor report with every typed attribute",
		"2.0",
		doc(
			"2.0",
			object(
				"2.0",
				"ADD",
				`<sensorElementList><sensorElement><sensorMetadata time="2020-01-01T00:00:00Z" bizRules="urn:x"/><sensorReport type="gs1:MT-Temperature" value="1e" booleanValue="0" hexBinaryValue="0A" time="2020-01-01T00:00:00+14:00" percRank="-INF"/></sensorElement></sensorElementList>`,
			),
		),
	],
	[
		"2.0 persistentDisposition set before unset",
		"2.0",
		doc(
			"2.0",
			object("2.0", "ADD", `<persistentDisposition><set>urn:x</set><unset>urn:y</unset></persistentDisposition>`),
		),
	],
];

beforeAll(() => ensureXmllint());

describe("epcis schema_compliance - namespace, lexical and wildcard corners agree with xmllint", () => {
	for (const [name, version, xml] of CASES) {
		it(name, async () => {
			const [judge] = xmllintValidates(XSD[version], [xml]);
			const ours = (await validateEpcis(xml, { rules: ["schema_compliance"] })).results.schema_compliance === "passed";
			expect(ours).toBe(judge);
		});
	}
});
