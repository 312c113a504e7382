import { NS_EPCIS_1, NS_EPCIS_2, NS_SBDH } from "../namespaces.ts";
import type { EpcisVersion } from "../types.ts";
import {
	type AnyParticle,
	type ComplexType,
	type ElementParticle,
	type GroupParticle,
	type Particle,
	UNBOUNDED,
} from "./content-model.ts";
import type { SimpleType } from "./simple-types.ts";

/**
 * The structure of EPCglobal-epcis-1_2.xsd and EPCglobal-epcis-2_0.xsd (with
 * StandardBusinessDocumentHeader.xsd and EPCglobal.xsd) as declarative content models,
 * written by reading the schemas; the differential test against `xmllint --schema` keeps
 * them honest. A type name is either a {@link SimpleType} or a key of `types`.
 */
export interface EpcisSchema {
	version: EpcisVersion;
	targetNamespace: string;
	types: Record<string, ComplexType>;
	/** Global element declarations by `{ns}local`, validated wherever lax wildcards meet them. */
	globals: Map<string, ElementParticle>;
}

const U = UNBOUNDED;
const el = (name: string, type: string, min = 1, max = 1, extra: Partial<ElementParticle> = {}): ElementParticle => ({
	kind: "element",
	name,
	ns: null,
	type,
	min,
	max,
	...extra,
});
const sb = (name: string, type: string, min = 1, max = 1): ElementParticle => ({
	...el(name, type, min, max),
	ns: NS_SBDH,
});
const opt = (name: string, type: string): ElementParticle => el(name, type, 0, 1);
const seq = (...items: Particle[]): GroupParticle => ({ kind: "sequence", items, min: 1, max: 1 });
const other = (min = 0): AnyParticle => ({ kind: "any", namespace: "##other", min, max: U });
const local = (): AnyParticle => ({ kind: "any", namespace: "##local", min: 1, max: U });
const s = (type: SimpleType): ComplexType => ({ simple: type });

const SBDH_TYPES: Record<string, ComplexType> = {
	StandardBusinessDocumentHeader: {
		content: seq(
			sb("HeaderVersion", "string"),
			sb("Sender", "Partner", 1, U),
			sb("Receiver", "Partner", 1, U),
			sb("DocumentIdentification", "DocumentIdentification"),
			sb("Manifest", "Manifest", 0),
			sb("BusinessScope", "BusinessScope", 0),
		),
	},
	StandardBusinessDocument: {
		content: seq(sb("StandardBusinessDocumentHeader", "StandardBusinessDocumentHeader", 0), other(1)),
	},
	Partner: {
		content: seq(sb("Identifier", "PartnerIdentification"), sb("ContactInformation", "ContactInformation", 0, U)),
	},
	PartnerIdentification: { simple: "string", attributes: { Authority: { type: "string" } } },
	ContactInformation: {
		content: seq(
			sb("Contact", "string"),
			sb("EmailAddress", "string", 0),
			sb("FaxNumber", "string", 0),
			sb("TelephoneNumber", "string", 0),
			sb("ContactTypeIdentifier", "string", 0),
		),
	},
	DocumentIdentification: {
		content: seq(
			sb("Standard", "string"),
			sb("TypeVersion", "string"),
			sb("InstanceIdentifier", "string"),
			sb("Type", "string"),
			sb("MultipleType", "boolean", 0),
			sb("CreationDateAndTime", "dateTime"),
		),
	},
	Manifest: { content: seq(sb("NumberOfItems", "integer"), sb("ManifestItem", "ManifestItem", 1, U)) },
	ManifestItem: {
		content: seq(
			sb("MimeTypeQualifierCode", "string"),
			sb("UniformResourceIdentifier", "anyURI"),
			sb("Description", "string", 0),
			sb("LanguageCode", "string", 0),
		),
	},
	BusinessScope: { content: seq(sb("Scope", "Scope", 0, U)) },
	Scope: {
		content: seq(
			sb("Type", "string"),
			sb("InstanceIdentifier", "string"),
			sb("Identifier", "string", 0),
			// ScopeInformation (abstract) and its substitution group
			{
				kind: "choice",
				min: 0,
				max: U,
				items: [
					sb("CorrelationInformation", "CorrelationInformation"),
					sb("BusinessService", "BusinessService"),
					{ ...sb("ScopeInformation", "anyType"), abstract: true },
				],
			},
		),
	},
	CorrelationInformation: {
		content: seq(
			sb("RequestingDocumentCreationDateTime", "dateTime", 0),
			sb("RequestingDocumentInstanceIdentifier", "string", 0),
			sb("ExpectedResponseDateTime", "dateTime", 0),
		),
	},
	BusinessService: {
		content: seq(sb("BusinessServiceName", "string", 0), sb("ServiceTransaction", "ServiceTransaction", 0)),
	},
	ServiceTransaction: {
		attributes: {
			TypeOfServiceTransaction: { type: "TypeOfServiceTransaction" },
			IsNonRepudiationRequired: { type: "string" },
			IsAuthenticationRequired: { type: "string" },
			IsNonRepudiationOfReceiptRequired: { type: "string" },
			IsIntegrityCheckRequired: { type: "string" },
			IsApplicationErrorResponseRequested: { type: "string" },
			TimeToAcknowledgeReceipt: { type: "string" },
			TimeToAcknowledgeAcceptance: { type: "string" },
			TimeToPerform: { type: "string" },
			Recurrence: { type: "string" },
		},
	},
	anyType: { mixed: true, anyAttribute: true },
};

/** Types the two versions share, given the version's dateTime type. */
function commonTypes(version: EpcisVersion): Record<string, ComplexType> {
	const localExt: ComplexType = { content: seq(local()), anyAttribute: true };
	return {
		EPCISDocumentType: {
			attributes: {
				schemaVersion: { type: "decimal", required: true },
				creationDate: { type: "dateTime", required: true },
			},
			anyAttribute: true,
			content: seq(
				opt("EPCISHeader", "EPCISHeaderType"),
				el("EPCISBody", "EPCISBodyType"),
				opt("extension", "LocalExt"),
				other(),
			),
		},
		LocalExt: localExt,
		EPCISHeaderExtensionType: {
			anyAttribute: true,
			content: seq(opt("EPCISMasterData", "EPCISMasterDataType"), opt("extension", "LocalExt")),
		},
		EPCISMasterDataType: {
			content: seq(el("VocabularyList", "VocabularyListType"), opt("extension", "LocalExtNoAttributes")),
		},
		LocalExtNoAttributes: { content: seq(local()) },
		VocabularyListType: { content: seq(el("Vocabulary", "VocabularyType", 0, U)) },
		VocabularyType: {
			attributes: { type: { type: "anyURI", required: true } },
			anyAttribute: true,
			content: seq(opt("VocabularyElementList", "VocabularyElementListType"), opt("extension", "LocalExt"), other()),
		},
		VocabularyElementListType: { content: seq(el("VocabularyElement", "VocabularyElementType", 1, U)) },
		VocabularyElementType: {
			attributes: { id: { type: "anyURI", required: true } },
			anyAttribute: true,
			content: seq(
				el("attribute", "AttributeType", 0, U),
				opt("children", "IDListType"),
				opt("extension", "LocalExt"),
				other(),
			),
		},
		AttributeType: { mixed: true, attributes: { id: { type: "anyURI", required: true } }, anyAttribute: true },
		IDListType: { anyAttribute: true, content: seq(el("id", "anyURI", 0, U)) },
		EPCISBodyType: {
			anyAttribute: true,
			content: seq(opt("EventList", "EventListType"), opt("extension", "LocalExt"), other()),
		},
		EPCListType: { content: seq(el("epc", "EPC", 0, U)) },
		EPC: s("string"),
		QuantityElementType: {
			content: seq(el("epcClass", "anyURI"), {
				kind: "sequence",
				min: 0,
				max: 1,
				items: [el("quantity", "decimal", 1, 1, { nillable: true }), opt("uom", "string")],
			}),
		},
		QuantityListType: { content: seq(el("quantityElement", "QuantityElementType", 0, U)) },
		ReadPointType: { content: seq(el("id", "anyURI"), opt("extension", "LocalExt"), other()) },
		BusinessTransactionType: { simple: "anyURI", attributes: { type: { type: "anyURI" } } },
		BusinessTransactionListType: { content: seq(el("bizTransaction", "BusinessTransactionType", 1, U)) },
		SourceDestType: { simple: "anyURI", attributes: { type: { type: "anyURI", required: true } } },
		SourceListType: { content: seq(el("source", "SourceDestType", 1, U)) },
		DestinationListType: { content: seq(el("destination", "SourceDestType", 1, U)) },
		ILMDType: { anyAttribute: true, content: seq(opt("extension", "LocalExt"), other()) },
		CorrectiveEventIDsType: { content: seq(el("correctiveEventID", "anyURI", 0, U)) },
		ErrorDeclarationType:
			version === "1.2"
				? {
						anyAttribute: true,
						content: seq(
							el("declarationTime", "dateTime"),
							opt("reason", "anyURI"),
							opt("correctiveEventIDs", "CorrectiveEventIDsType"),
							opt("extension", "LocalExt"),
							other(),
						),
					}
				: {
						anyAttribute: true,
						content: seq({
							kind: "choice",
							min: 0,
							max: U,
							items: [
								el("declarationTime", "DateTimeStamp"),
								opt("reason", "anyURI"),
								opt("correctiveEventIDs", "CorrectiveEventIDsType"),
								opt("extension", "LocalExt"),
								other(),
							],
						}),
					},
	};
}

const what = (...names: [string, string][]): ElementParticle[] => names.map(([n, t]) => opt(n, t));
const WHY_WHERE: [string, string][] = [
	["bizStep", "anyURI"],
	["disposition", "anyURI"],
	["readPoint", "ReadPointType"],
	["bizLocation", "ReadPointType"],
];

function event(base: Particle[], own: Particle[]): ComplexType {
	return { anyAttribute: true, content: seq(...base, ...own, other()) };
}

function schema12(): EpcisSchema {
	const base = [
		el("eventTime", "dateTime"),
		opt("recordTime", "dateTime"),
		el("eventTimeZoneOffset", "string"),
		opt("baseExtension", "EPCISEventExtensionType"),
	];
	const types: Record<string, ComplexType> = {
		...SBDH_TYPES,
		...commonTypes("1.2"),
		EPCISHeaderType: {
			anyAttribute: true,
			content: seq(
				sb("StandardBusinessDocumentHeader", "StandardBusinessDocumentHeader"),
				opt("extension", "EPCISHeaderExtensionType"),
				other(),
			),
		},
		EventListType: {
			anyAttribute: true,
			content: seq({
				kind: "choice",
				min: 0,
				max: U,
				items: [
					el("ObjectEvent", "ObjectEventType"),
					el("AggregationEvent", "AggregationEventType"),
					el("QuantityEvent", "QuantityEventType"),
					el("TransactionEvent", "TransactionEventType"),
					el("extension", "EPCISEventListExtensionType"),
				],
			}),
		},
		EPCISEventListExtensionType: {
			content: {
				kind: "choice",
				min: 1,
				max: 1,
				items: [el("TransformationEvent", "TransformationEventType"), el("extension", "LocalExt")],
			},
		},
		EPCISEventExtensionType: {
			anyAttribute: true,
			content: seq(
				opt("eventID", "anyURI"),
				opt("errorDeclaration", "ErrorDeclarationType"),
				opt("extension", "LocalExt"),
			),
		},
		ObjectEventType: event(base, [
			el("epcList", "EPCListType"),
			el("action", "ActionType"),
			...what(
				...WHY_WHERE,
				["bizTransactionList", "BusinessTransactionListType"],
				["extension", "ObjectEventExtensionType"],
			),
		]),
		ObjectEventExtensionType: {
			anyAttribute: true,
			content: seq(
				...what(
					["quantityList", "QuantityListType"],
					["sourceList", "SourceListType"],
					["destinationList", "DestinationListType"],
					["ilmd", "ILMDType"],
					["extension", "LocalExt"],
				),
			),
		},
		AggregationEventType: event(base, [
			opt("parentID", "anyURI"),
			el("childEPCs", "EPCListType"),
			el("action", "ActionType"),
			...what(
				...WHY_WHERE,
				["bizTransactionList", "BusinessTransactionListType"],
				["extension", "AggregationEventExtensionType"],
			),
		]),
		AggregationEventExtensionType: {
			anyAttribute: true,
			content: seq(
				...what(
					["childQuantityList", "QuantityListType"],
					["sourceList", "SourceListType"],
					["destinationList", "DestinationListType"],
					["extension", "LocalExt"],
				),
			),
		},
		QuantityEventType: event(base, [
			el("epcClass", "anyURI"),
			el("quantity", "int"),
			...what(...WHY_WHERE, ["bizTransactionList", "BusinessTransactionListType"], ["extension", "LocalExt"]),
		]),
		TransactionEventType: event(base, [
			el("bizTransactionList", "BusinessTransactionListType"),
			opt("parentID", "anyURI"),
			el("epcList", "EPCListType"),
			el("action", "ActionType"),
			...what(...WHY_WHERE, ["extension", "TransactionEventExtensionType"]),
		]),
		TransactionEventExtensionType: {
			anyAttribute: true,
			content: seq(
				...what(
					["quantityList", "QuantityListType"],
					["sourceList", "SourceListType"],
					["destinationList", "DestinationListType"],
					["extension", "LocalExt"],
				),
			),
		},
		TransformationEventType: event(
			base,
			what(
				["inputEPCList", "EPCListType"],
				["inputQuantityList", "QuantityListType"],
				["outputEPCList", "EPCListType"],
				["outputQuantityList", "QuantityListType"],
				["transformationID", "anyURI"],
				...WHY_WHERE,
				["bizTransactionList", "BusinessTransactionListType"],
				["sourceList", "SourceListType"],
				["destinationList", "DestinationListType"],
				["ilmd", "ILMDType"],
				["extension", "LocalExt"],
			),
		),
	};
	return { version: "1.2", targetNamespace: NS_EPCIS_1, types, globals: globals(NS_EPCIS_1) };
}

function schema20(): EpcisSchema {
	const base = [
		el("eventTime", "DateTimeStamp"),
		opt("recordTime", "DateTimeStamp"),
		el("eventTimeZoneOffset", "string"),
		opt("eventID", "anyURI"),
		opt("errorDeclaration", "ErrorDeclarationType"),
		opt("certificationInfo", "anyURI"),
		opt("baseExtension", "OtherExt"),
	];
	const tail: [string, string][] = [
		["sourceList", "SourceListType"],
		["destinationList", "DestinationListType"],
		["sensorElementList", "SensorElementListType"],
		["persistentDisposition", "PersistentDispositionType"],
	];
	const types: Record<string, ComplexType> = {
		...SBDH_TYPES,
		...commonTypes("2.0"),
		OtherExt: { content: seq(other(1)), anyAttribute: true },
		EPCISHeaderType: {
			anyAttribute: true,
			content: seq(
				sb("StandardBusinessDocumentHeader", "StandardBusinessDocumentHeader", 0),
				opt("extension", "EPCISHeaderExtensionType"),
			),
		},
		EventListType: {
			anyAttribute: true,
			content: seq({
				kind: "choice",
				min: 0,
				max: U,
				items: [
					el("ObjectEvent", "ObjectEventType"),
					el("AggregationEvent", "AggregationEventType"),
					el("TransformationEvent", "TransformationEventType"),
					el("TransactionEvent", "TransactionEventType"),
					el("AssociationEvent", "AssociationEventType"),
					el("extension", "OtherExt"),
				],
			}),
		},
		PersistentDispositionType: { content: seq(el("unset", "anyURI", 0, U), el("set", "anyURI", 0, U)) },
		SensorMetadataType: {
			simple: "string",
			anyAttribute: true,
			attributes: {
				time: { type: "DateTimeStamp" },
				deviceID: { type: "anyURI" },
				deviceMetadata: { type: "anyURI" },
				rawData: { type: "anyURI" },
				startTime: { type: "DateTimeStamp" },
				endTime: { type: "DateTimeStamp" },
				bizRules: { type: "anyURI" },
				dataProcessingMethod: { type: "anyURI" },
			},
		},
		SensorReportType: {
			simple: "string",
			anyAttribute: true,
			attributes: {
				type: { type: "anyURI" },
				value: { type: "double" },
				component: { type: "anyURI" },
				stringValue: { type: "string" },
				booleanValue: { type: "boolean" },
				hexBinaryValue: { type: "hexBinary" },
				uriValue: { type: "anyURI" },
				uom: { type: "string" },
				minValue: { type: "double" },
				maxValue: { type: "double" },
				sDev: { type: "double" },
				chemicalSubstance: { type: "anyURI" },
				microorganism: { type: "anyURI" },
				deviceID: { type: "anyURI" },
				deviceMetadata: { type: "anyURI" },
				rawData: { type: "anyURI" },
				time: { type: "DateTimeStamp" },
				meanValue: { type: "double" },
				percRank: { type: "double" },
				percValue: { type: "double" },
				dataProcessingMethod: { type: "anyURI" },
				coordinateReferenceSystem: { type: "anyURI" },
				exception: { type: "anyURI" },
			},
		},
		SensorElementType: {
			content: seq(
				opt("sensorMetadata", "SensorMetadataType"),
				el("sensorReport", "SensorReportType", 1, U),
				opt("extension", "LocalExt"),
				other(),
			),
		},
		SensorElementListType: {
			content: seq(el("sensorElement", "SensorElementType", 1, U), opt("extension", "LocalExt")),
		},
		ObjectEventType: event(base, [
			opt("epcList", "EPCListType"),
			el("action", "ActionType"),
			...what(
				...WHY_WHERE,
				["bizTransactionList", "BusinessTransactionListType"],
				["quantityList", "QuantityListType"],
				...tail,
				["ilmd", "ILMDType"],
				["extension", "OtherExt"],
			),
		]),
		AggregationEventType: event(base, [
			opt("parentID", "anyURI"),
			opt("childEPCs", "EPCListType"),
			el("action", "ActionType"),
			...what(
				...WHY_WHERE,
				["bizTransactionList", "BusinessTransactionListType"],
				["childQuantityList", "QuantityListType"],
				...tail,
				["extension", "OtherExt"],
			),
		]),
		TransactionEventType: event(base, [
			el("bizTransactionList", "BusinessTransactionListType"),
			opt("parentID", "anyURI"),
			opt("epcList", "EPCListType"),
			el("action", "ActionType"),
			...what(...WHY_WHERE, ["quantityList", "QuantityListType"], ...tail, ["extension", "OtherExt"]),
		]),
		TransformationEventType: event(
			base,
			what(
				["inputEPCList", "EPCListType"],
				["inputQuantityList", "QuantityListType"],
				["outputEPCList", "EPCListType"],
				["outputQuantityList", "QuantityListType"],
				["transformationID", "anyURI"],
				...WHY_WHERE,
				["bizTransactionList", "BusinessTransactionListType"],
				...tail,
				["ilmd", "ILMDType"],
				["extension", "OtherExt"],
			),
		),
		AssociationEventType: event(base, [
			el("parentID", "anyURI"),
			opt("childEPCs", "EPCListType"),
			opt("childQuantityList", "QuantityListType"),
			el("action", "ActionType"),
			...what(...WHY_WHERE, ["bizTransactionList", "BusinessTransactionListType"], ...tail, ["extension", "OtherExt"]),
		]),
	};
	return { version: "2.0", targetNamespace: NS_EPCIS_2, types, globals: globals(NS_EPCIS_2) };
}

function globals(target: string): Map<string, ElementParticle> {
	const map = new Map<string, ElementParticle>();
	const add = (p: ElementParticle): void => {
		map.set(`{${p.ns ?? ""}}${p.name}`, p);
	};
	add({ ...el("EPCISDocument", "EPCISDocumentType"), ns: target });
	add(sb("StandardBusinessDocumentHeader", "StandardBusinessDocumentHeader"));
	add(sb("StandardBusinessDocument", "StandardBusinessDocument"));
	add(sb("CorrelationInformation", "CorrelationInformation"));
	add(sb("BusinessService", "BusinessService"));
	add({ ...sb("ScopeInformation", "anyType"), abstract: true });
	return map;
}

const SCHEMAS: Record<EpcisVersion, EpcisSchema> = { "1.2": schema12(), "2.0": schema20() };

export function getEpcisSchema(version: EpcisVersion): EpcisSchema {
	return SCHEMAS[version];
}
