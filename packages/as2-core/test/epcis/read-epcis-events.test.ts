import { describe, expect, it } from "vitest";
import { type EpcisEvent, readEpcisEvents } from "../../src/epcis/index.ts";
import { readCorpus } from "./corpus.ts";

async function events(name: string): Promise<EpcisEvent[]> {
	const out: EpcisEvent[] = [];
	for await (const e of readEpcisEvents(readCorpus(name))) out.push(e);
	return out;
}

describe("readEpcisEvents - EPCIS 2.0 JSON-LD shape from 1.2 and 2.0 XML", () => {
	it("a 1.2 and a 2.0 document of the same transfer read as the same events", async () => {
		const v12 = await events("12-dscsa-complete.xml");
		const v20 = (await events("20-dscsa-complete.xml")).map(
			({ eventID: _, "gs1ushc:dscsaTransactionStatement": __, ...rest }) => rest,
		);
		expect(v20).toEqual(v12);
		expect(v12.map((e) => [e.type, e.bizStep, e.action])).toEqual([
			["ObjectEvent", "commissioning", "ADD"],
			["AggregationEvent", "packing", "ADD"],
			["ObjectEvent", "shipping", "OBSERVE"],
		]);
	});

	it("flattens 1.2 extension wrappers and canonicalizes vocabulary", async () => {
		const [event] = await events("12-transaction-event.xml");
		expect(event).toEqual({
			type: "TransactionEvent",
			eventTime: "2014-09-30T14:00:00+02:00",
			recordTime: "2014-09-30T14:00:05+02:00",
			eventTimeZoneOffset: "+02:00",
			eventID: "urn:uuid:4a3b31a2-2c4f-4c85-9a6b-9b06c2e2b0a1",
			bizTransactionList: [{ type: "po", bizTransaction: "urn:epcglobal:cbv:bt:4012345000009:PO-889" }],
			parentID: "urn:epc:id:sscc:4012345.0000000001",
			epcList: [
				"urn:epc:id:sgtin:4012345.011111.1",
				"urn:epc:id:grai:4012345.55555.5",
				"urn:epc:id:giai:4012345.ABC-123",
			],
			action: "ADD",
			bizStep: "shipping",
			disposition: "in_transit",
			readPoint: { id: "urn:epc:id:sgln:4012345.00001.0" },
			quantityList: [{ epcClass: "urn:epc:class:lgtin:4012345.011111.LOT42", quantity: 5 }],
			sourceList: [
				{ type: "owning_party", source: "urn:epc:id:pgln:4012345.00000" },
				{ type: "location", source: "urn:epc:id:sgln:4012345.00001.0" },
			],
			destinationList: [
				{ type: "owning_party", destination: "urn:epc:id:pgln:0614141.00000" },
				{ type: "location", destination: "urn:epc:id:sgln:0614141.00002.0" },
			],
		});
	});

	it("reads the 1.2 TransformationEvent inside EventList/extension, and 2.0 Association events", async () => {
		const [transformation] = await events("12-transformation-event.xml");
		expect(transformation).toMatchObject({
			type: "TransformationEvent",
			inputQuantityList: [{ epcClass: "urn:epc:class:lgtin:4012345.011111.4444", quantity: 10, uom: "KGM" }],
			outputEPCList: ["urn:epc:id:sgtin:4012345.077889.25"],
			transformationID: "urn:epc:id:gdti:0614141.12345.400",
			ilmd: { "cbvmda:lotNumber": "LOTABC", "cbvmda:itemExpirationDate": "2015-12-31" },
		});
		const types = (await events("20-all-event-types.xml")).map((e) => e.type);
		expect(types).toEqual(["AggregationEvent", "TransformationEvent", "TransactionEvent", "AssociationEvent"]);
	});

	it("2.0 additions and extensions: sensors, persistent disposition, certification, error declaration", async () => {
		const [sensor] = await events("20-object-event-sensor.xml");
		expect(sensor).toMatchObject({
			certificationInfo: "https://accreditation-council.example.org/certificate/ABC12345",
			bizStep: "inspecting",
			persistentDisposition: { set: ["completeness_verified"], unset: ["completeness_inferred"] },
			quantityList: [{ epcClass: "urn:epc:class:lgtin:4012345.011111.4444", quantity: 10.5, uom: "KGM" }],
			"example:myField": "Example of a vendor/user extension",
		});
		expect(sensor!.sensorElementList?.[0]).toMatchObject({
			sensorMetadata: { deviceID: "urn:epc:id:giai:4000001.111" },
			sensorReport: [{ type: "gs1:MT-Temperature", value: 26, uom: "CEL" }, { value: 12.1 }, { booleanValue: true }],
		});
		const [declared] = await events("20-digital-link.xml");
		expect(declared!.errorDeclaration).toEqual({ declarationTime: "2021-05-06T09:00:00Z", reason: "did_not_occur" });
		const [extended] = await events("12-extensions-and-master-data.xml");
		expect(extended!["ext:temperature"]).toEqual([
			{ "@unit": "CEL", "#text": "4.5" },
			{ "@unit": "CEL", "#text": "4.7" },
		]);
		expect(extended!.quantityList).toEqual([
			{ epcClass: "urn:epc:class:lgtin:4012345.011111.LOT1" },
			{ epcClass: "urn:epc:class:lgtin:4012345.011111.LOT2" },
		]);
	});

	it("reads the deprecated 1.2 QuantityEvent as an ObjectEvent with a quantity list", async () => {
		expect(await events("12-quantity-event.xml")).toEqual([
			{
				type: "ObjectEvent",
				eventTime: "2012-03-25T17:10:16Z",
				eventTimeZoneOffset: "+00:00",
				action: "OBSERVE",
				quantityList: [{ epcClass: "urn:epc:idpat:sgtin:0614141.107346.*", quantity: 200 }],
				bizStep: "stocking",
			},
		]);
	});

	it("reads the events of an EPCISQueryDocument", async () => {
		expect(await events("20-query-document.xml")).toEqual([
			{
				type: "ObjectEvent",
				eventTime: "2021-12-31T23:00:00Z",
				eventTimeZoneOffset: "+00:00",
				epcList: ["urn:epc:id:sgtin:4012345.011111.1"],
				action: "OBSERVE",
				bizStep: "receiving",
			},
		]);
	});
});
