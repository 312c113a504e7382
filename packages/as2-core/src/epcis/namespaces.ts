/** Namespace URIs of EPCIS 1.2/2.0 XML (EPCIS 2.0 §9.2, §12.1) and its companions. */
export const NS_EPCIS_1 = "urn:epcglobal:epcis:xsd:1";
export const NS_EPCIS_2 = "urn:epcglobal:epcis:xsd:2";
export const NS_EPCIS_QUERY_1 = "urn:epcglobal:epcis-query:xsd:1";
export const NS_EPCIS_QUERY_2 = "urn:epcglobal:epcis-query:xsd:2";
export const NS_EPCIS_MASTERDATA_1 = "urn:epcglobal:epcis-masterdata:xsd:1";
export const NS_EPCIS_MASTERDATA_2 = "urn:epcglobal:epcis-masterdata:xsd:2";
export const NS_SBDH = "http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader";
export const NS_XSI = "http://www.w3.org/2001/XMLSchema-instance";
export const NS_XML = "http://www.w3.org/XML/1998/namespace";
export const NS_XMLNS = "http://www.w3.org/2000/xmlns/";
/** CBV master data attributes as XML elements in ILMD (CBV 1.2 §8, CBV 2.0 §10). */
export const NS_CBV_MDA = "urn:epcglobal:cbv:mda";
/** GS1 US Healthcare DSCSA extension (GS1 US DSCSA Implementation Guideline R1.2+). */
export const NS_GS1US_HC = "http://epcis.gs1us.org/hc/ns";

/** Namespaces whose elements are part of EPCIS itself: custom extensions may not use them. */
export const EPCIS_OWN_NAMESPACES: ReadonlySet<string> = new Set([
	NS_EPCIS_1,
	NS_EPCIS_2,
	NS_EPCIS_QUERY_1,
	NS_EPCIS_QUERY_2,
	NS_EPCIS_MASTERDATA_1,
	NS_EPCIS_MASTERDATA_2,
]);
