// A large, schema-valid EPCIS document generated as a stream of chunks, never held whole:
// an SBDH header with master data, then commissioning / packing / shipping / transformation
// (and, in 2.0, association) events in turn until `bytes` is reached.
const encoder = new TextEncoder();

const ROOT = {
	1.2: `<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:1" xmlns:sbdh="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader" xmlns:cbvmda="urn:epcglobal:cbv:mda" xmlns:gs1ushc="http://epcis.gs1us.org/hc/ns" schemaVersion="1.2" creationDate="2023-03-01T12:00:00.000-05:00">`,
	"2.0": `<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" xmlns:sbdh="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader" xmlns:cbvmda="urn:epcglobal:cbv:mda" xmlns:gs1ushc="http://epcis.gs1us.org/hc/ns" schemaVersion="2.0" creationDate="2023-03-01T12:00:00.000-05:00">`,
};

const HEADER = `<EPCISHeader><sbdh:StandardBusinessDocumentHeader><sbdh:HeaderVersion>1.0</sbdh:HeaderVersion><sbdh:Sender><sbdh:Identifier Authority="SGLN">urn:epc:id:sgln:0355154.00000.0</sbdh:Identifier></sbdh:Sender><sbdh:Receiver><sbdh:Identifier Authority="SGLN">urn:epc:id:sgln:0399999.00000.0</sbdh:Identifier></sbdh:Receiver><sbdh:DocumentIdentification><sbdh:Standard>EPCglobal</sbdh:Standard><sbdh:TypeVersion>1.0</sbdh:TypeVersion><sbdh:InstanceIdentifier>bench</sbdh:InstanceIdentifier><sbdh:Type>Events</sbdh:Type><sbdh:CreationDateAndTime>2023-03-01T12:00:00.000-05:00</sbdh:CreationDateAndTime></sbdh:DocumentIdentification></sbdh:StandardBusinessDocumentHeader><extension><EPCISMasterData><VocabularyList><Vocabulary type="urn:epcglobal:epcis:vtype:EPCClass"><VocabularyElementList><VocabularyElement id="urn:epc:idpat:sgtin:0355154.094495.*"><attribute id="urn:epcglobal:cbv:mda#regulatedProductName">Examplamycin</attribute><attribute id="urn:epcglobal:cbv:mda#dosageFormType">TABLET</attribute><attribute id="urn:epcglobal:cbv:mda#strengthDescription">500 mg</attribute><attribute id="urn:epcglobal:cbv:mda#netContentDescription">100 tablets</attribute></VocabularyElement></VocabularyElementList></Vocabulary></VocabularyList></EPCISMasterData></extension></EPCISHeader>`;

const sgtin = (n) => `urn:epc:id:sgtin:0355154.094495.${400000000000 + n}`;
const sscc = (n) => `urn:epc:id:sscc:0355154.${String(n % 10_000_000_000).padStart(10, "0")}`;
const time = (n) =>
	`2023-02-${String(1 + (n % 28)).padStart(2, "0")}T09:${String(n % 60).padStart(2, "0")}:00.000-05:00`;
const head = (n) => `<eventTime>${time(n)}</eventTime><eventTimeZoneOffset>-05:00</eventTimeZoneOffset>`;
const where = `<readPoint><id>urn:epc:id:sgln:0355154.00001.0</id></readPoint><bizLocation><id>urn:epc:id:sgln:0355154.00001.0</id></bizLocation>`;

function event(version, n) {
	const ext = (inner) => (version === "1.2" ? `<extension>${inner}</extension>` : inner);
	switch (n % (version === "1.2" ? 4 : 5)) {
		case 0: {
			const epcs = Array.from({ length: 4 }, (_, i) => `<epc>${sgtin(n * 4 + i)}</epc>`).join("");
			return `<ObjectEvent>${head(n)}<epcList>${epcs}</epcList><action>ADD</action><bizStep>urn:epcglobal:cbv:bizstep:commissioning</bizStep><disposition>urn:epcglobal:cbv:disp:active</disposition>${where}${ext("<ilmd><cbvmda:lotNumber>A1234</cbvmda:lotNumber><cbvmda:itemExpirationDate>2025-12-31</cbvmda:itemExpirationDate></ilmd>")}</ObjectEvent>`;
		}
		case 1: {
			const epcs = Array.from({ length: 4 }, (_, i) => `<epc>${sgtin((n - 1) * 4 + i)}</epc>`).join("");
			return `<AggregationEvent>${head(n)}<parentID>${sscc(n)}</parentID><childEPCs>${epcs}</childEPCs><action>ADD</action><bizStep>urn:epcglobal:cbv:bizstep:packing</bizStep><disposition>urn:epcglobal:cbv:disp:in_progress</disposition>${where}</AggregationEvent>`;
		}
		case 2:
			return `<ObjectEvent>${head(n)}<epcList><epc>${sscc(n - 1)}</epc></epcList><action>OBSERVE</action><bizStep>urn:epcglobal:cbv:bizstep:shipping</bizStep><disposition>urn:epcglobal:cbv:disp:in_transit</disposition>${where}<bizTransactionList><bizTransaction type="urn:epcglobal:cbv:btt:po">urn:epcglobal:cbv:bt:0399999000005:PO-${n}</bizTransaction><bizTransaction type="urn:epcglobal:cbv:btt:desadv">urn:epcglobal:cbv:bt:0355154000008:ASN-${n}</bizTransaction></bizTransactionList>${ext(`<sourceList><source type="urn:epcglobal:cbv:sdt:owning_party">urn:epc:id:sgln:0355154.00000.0</source><source type="urn:epcglobal:cbv:sdt:location">urn:epc:id:sgln:0355154.00001.0</source></sourceList><destinationList><destination type="urn:epcglobal:cbv:sdt:owning_party">urn:epc:id:sgln:0399999.00000.0</destination><destination type="urn:epcglobal:cbv:sdt:location">urn:epc:id:sgln:0399999.00002.0</destination></destinationList>`)}<gs1ushc:dscsaTransactionStatement><gs1ushc:affirmTransactionStatement>true</gs1ushc:affirmTransactionStatement></gs1ushc:dscsaTransactionStatement></ObjectEvent>`;
		case 3: {
			const body = `${head(n)}<inputQuantityList><quantityElement><epcClass>urn:epc:class:lgtin:0355154.094495.L${n}</epcClass><quantity>12.5</quantity><uom>KGM</uom></quantityElement></inputQuantityList><outputEPCList><epc>${sgtin(n)}</epc></outputEPCList><bizStep>urn:epcglobal:cbv:bizstep:commissioning</bizStep>${where}`;
			return version === "1.2"
				? `<extension><TransformationEvent>${body}</TransformationEvent></extension>`
				: `<TransformationEvent>${body}</TransformationEvent>`;
		}
		default:
			return `<AssociationEvent>${head(n)}<eventID>urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, "0")}</eventID><parentID>urn:epc:id:grai:0355154.55555.${n}</parentID><childEPCs><epc>urn:epc:id:giai:0355154.S${n}</epc></childEPCs><action>ADD</action><bizStep>urn:epcglobal:cbv:bizstep:assembling</bizStep>${where}<sensorElementList><sensorElement><sensorReport type="gs1:MT-Temperature" value="4.5" uom="CEL"/></sensorElement></sensorElementList></AssociationEvent>`;
	}
}

/** Yields about `bytes` bytes of a valid EPCIS `version` document in ~64 KB chunks; `stats.events` counts events. */
export async function* generateEpcisDocument(version, bytes, stats = { events: 0, bytes: 0 }) {
	let pending = `<?xml version="1.0" encoding="UTF-8"?>\n${ROOT[version]}${HEADER}<EPCISBody><EventList>`;
	let n = 0;
	while (stats.bytes + pending.length < bytes) {
		pending += event(version, n++);
		if (pending.length >= 64 * 1024) {
			const chunk = encoder.encode(pending);
			stats.bytes += chunk.byteLength;
			yield chunk;
			pending = "";
		}
	}
	stats.events = n;
	const last = encoder.encode(`${pending}</EventList></EPCISBody></epcis:EPCISDocument>\n`);
	stats.bytes += last.byteLength;
	yield last;
}

/** A document whose first event carries an attribute of `bytes` bytes, streamed. */
export async function* hugeAttributeDocument(bytes, stats = { bytes: 0 }) {
	const start = encoder.encode(`${ROOT["2.0"]}<EPCISBody><EventList><ObjectEvent note="`);
	stats.bytes += start.byteLength;
	yield start;
	const block = encoder.encode("A".repeat(64 * 1024));
	for (let sent = 0; sent < bytes; sent += block.byteLength) {
		stats.bytes += block.byteLength;
		yield block;
	}
	yield encoder.encode(`"/></EventList></EPCISBody></epcis:EPCISDocument>`);
}
