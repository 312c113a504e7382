/**
 * EPCIS documents for the indexing and query tests: every event has an eventID `ev:<n>`, and
 * each parameter of SimpleEventQuery has events it must find and events it must not.
 */

/** EPCIS 2.0: one of each event type; vocabulary in URN, Web URI and bare-word forms. */
export const DOCUMENT_20 = `<?xml version="1.0" encoding="UTF-8"?>
<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" xmlns:cbvmda="urn:epcglobal:cbv:mda" schemaVersion="2.0" creationDate="2024-01-16T00:00:00Z">
  <EPCISBody>
    <EventList>
      <ObjectEvent>
        <eventTime>2024-01-10T10:00:00.000Z</eventTime>
        <eventTimeZoneOffset>+00:00</eventTimeZoneOffset>
        <eventID>ev:1</eventID>
        <epcList>
          <epc>urn:epc:id:sgtin:0614141.107346.2017</epc>
          <epc>urn:epc:id:sgtin:0614141.107346.2018</epc>
        </epcList>
        <action>ADD</action>
        <bizStep>urn:epcglobal:cbv:bizstep:commissioning</bizStep>
        <disposition>urn:epcglobal:cbv:disp:active</disposition>
        <readPoint><id>urn:epc:id:sgln:0614141.00777.0</id></readPoint>
        <bizLocation><id>urn:epc:id:sgln:0614141.00777.0</id></bizLocation>
      </ObjectEvent>
      <AggregationEvent>
        <eventTime>2024-01-11T10:00:00.000+02:00</eventTime>
        <eventTimeZoneOffset>+02:00</eventTimeZoneOffset>
        <eventID>ev:2</eventID>
        <parentID>urn:epc:id:sscc:0614141.1234567890</parentID>
        <childEPCs>
          <epc>urn:epc:id:sgtin:0614141.107346.2017</epc>
          <epc>urn:epc:id:sgtin:0614141.107346.2018</epc>
        </childEPCs>
        <action>ADD</action>
        <bizStep>https://ref.gs1.org/cbv/BizStep-packing</bizStep>
        <disposition>https://ref.gs1.org/cbv/Disp-in_progress</disposition>
        <readPoint><id>urn:epc:id:sgln:0614141.00777.1</id></readPoint>
        <bizLocation><id>urn:epc:id:sgln:0614141.00777.0</id></bizLocation>
        <childQuantityList>
          <quantityElement>
            <epcClass>urn:epc:idpat:sgtin:4012345.098765.*</epcClass>
            <quantity>10</quantity>
          </quantityElement>
        </childQuantityList>
      </AggregationEvent>
      <ObjectEvent>
        <eventTime>2024-01-12T10:00:00.000Z</eventTime>
        <eventTimeZoneOffset>+00:00</eventTimeZoneOffset>
        <eventID>ev:3</eventID>
        <epcList>
          <epc>urn:epc:id:sscc:0614141.1234567890</epc>
        </epcList>
        <action>OBSERVE</action>
        <bizStep>shipping</bizStep>
        <disposition>in_transit</disposition>
        <readPoint><id>urn:epc:id:sgln:0614141.00888.0</id></readPoint>
        <bizTransactionList>
          <bizTransaction type="urn:epcglobal:cbv:btt:po">urn:epcglobal:cbv:bt:0614141000005:PO-1</bizTransaction>
          <bizTransaction type="https://ref.gs1.org/cbv/BTT-desadv">urn:epcglobal:cbv:bt:0614141000005:ASN-1</bizTransaction>
        </bizTransactionList>
        <sourceList>
          <source type="urn:epcglobal:cbv:sdt:owning_party">urn:epc:id:pgln:0614141.00000</source>
        </sourceList>
        <destinationList>
          <destination type="urn:epcglobal:cbv:sdt:owning_party">urn:epc:id:pgln:4012345.00000</destination>
          <destination type="https://ref.gs1.org/cbv/SDT-location">urn:epc:id:sgln:4012345.00001.0</destination>
        </destinationList>
      </ObjectEvent>
      <TransformationEvent>
        <eventTime>2024-01-13T10:00:00.000Z</eventTime>
        <eventTimeZoneOffset>+00:00</eventTimeZoneOffset>
        <eventID>ev:4</eventID>
        <inputEPCList>
          <epc>urn:epc:id:sgtin:0614141.107346.2019</epc>
        </inputEPCList>
        <inputQuantityList>
          <quantityElement>
            <epcClass>urn:epc:class:lgtin:4012345.011111.LOT1</epcClass>
            <quantity>10</quantity>
            <uom>KGM</uom>
          </quantityElement>
        </inputQuantityList>
        <outputEPCList>
          <epc>urn:epc:id:sgtin:4012345.077889.25</epc>
        </outputEPCList>
        <transformationID>urn:uuid:9f0b5a36-0b61-4a3b-9e4b-3b1d2f6f8a01</transformationID>
        <bizStep>urn:epcglobal:cbv:bizstep:commissioning</bizStep>
        <disposition>urn:epcglobal:cbv:disp:active</disposition>
        <readPoint><id>urn:epc:id:sgln:4012345.00001.0</id></readPoint>
      </TransformationEvent>
      <TransactionEvent>
        <eventTime>2024-01-14T10:00:00.000Z</eventTime>
        <eventTimeZoneOffset>+00:00</eventTimeZoneOffset>
        <eventID>ev:5</eventID>
        <bizTransactionList>
          <bizTransaction type="urn:epcglobal:cbv:btt:po">urn:epcglobal:cbv:bt:0614141000005:PO-1</bizTransaction>
        </bizTransactionList>
        <epcList>
          <epc>urn:epc:id:sgtin:4012345.077889.25</epc>
        </epcList>
        <action>ADD</action>
        <bizStep>urn:epcglobal:cbv:bizstep:shipping</bizStep>
        <disposition>urn:epcglobal:cbv:disp:in_transit</disposition>
        <readPoint><id>https://id.gs1.org/414/0614141007776</id></readPoint>
      </TransactionEvent>
      <AssociationEvent>
        <eventTime>2024-01-15T10:00:00.000Z</eventTime>
        <eventTimeZoneOffset>+00:00</eventTimeZoneOffset>
        <eventID>ev:6</eventID>
        <parentID>urn:epc:id:grai:4012345.55555.987</parentID>
        <childEPCs>
          <epc>urn:epc:id:giai:4000001.12345</epc>
        </childEPCs>
        <action>ADD</action>
        <bizStep>urn:epcglobal:cbv:bizstep:assembling</bizStep>
        <readPoint><id>https://id.gs1.org/414/0614141007776/254/3</id></readPoint>
      </AssociationEvent>
    </EventList>
  </EPCISBody>
</epcis:EPCISDocument>
`;

/** EPCIS 1.2: a quantity list in the 1.2 extension, and the deprecated QuantityEvent. */
export const DOCUMENT_12 = `<?xml version="1.0" encoding="UTF-8"?>
<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:1" schemaVersion="1.2" creationDate="2024-02-03T00:00:00Z">
  <EPCISBody>
    <EventList>
      <ObjectEvent>
        <eventTime>2024-02-01T00:00:00Z</eventTime>
        <eventTimeZoneOffset>+00:00</eventTimeZoneOffset>
        <baseExtension><eventID>ev:7</eventID></baseExtension>
        <epcList/>
        <action>OBSERVE</action>
        <bizStep>urn:epcglobal:cbv:bizstep:receiving</bizStep>
        <disposition>urn:epcglobal:cbv:disp:in_progress</disposition>
        <readPoint><id>urn:epc:id:sgln:4012345.00001.0</id></readPoint>
        <extension>
          <quantityList>
            <quantityElement>
              <epcClass>urn:epc:class:lgtin:0614141.107346.LOTA</epcClass>
              <quantity>5</quantity>
            </quantityElement>
          </quantityList>
        </extension>
      </ObjectEvent>
      <QuantityEvent>
        <eventTime>2024-02-02T00:00:00Z</eventTime>
        <eventTimeZoneOffset>+00:00</eventTimeZoneOffset>
        <baseExtension><eventID>ev:8</eventID></baseExtension>
        <epcClass>urn:epc:idpat:sgtin:0614141.107346.*</epcClass>
        <quantity>100</quantity>
        <bizStep>urn:epcglobal:cbv:bizstep:stocking</bizStep>
      </QuantityEvent>
    </EventList>
  </EPCISBody>
</epcis:EPCISDocument>
`;

/** A 2.0 document of `count` ObjectEvents (`ev:big-<n>`), one SGTIN each. */
export function manyEvents(count: number): string {
	const events = Array.from(
		{ length: count },
		(_, n) =>
			`<ObjectEvent><eventTime>2024-03-01T00:00:${String(n % 60).padStart(2, "0")}Z</eventTime><eventTimeZoneOffset>+00:00</eventTimeZoneOffset><eventID>ev:big-${n}</eventID><epcList><epc>urn:epc:id:sgtin:9521141.012345.${n}</epc></epcList><action>OBSERVE</action><bizStep>urn:epcglobal:cbv:bizstep:storing</bizStep></ObjectEvent>`,
	).join("\n");
	return `<?xml version="1.0" encoding="UTF-8"?>
<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0" creationDate="2024-03-01T00:00:00Z">
<EPCISBody><EventList>
${events}
</EventList></EPCISBody></epcis:EPCISDocument>
`;
}
