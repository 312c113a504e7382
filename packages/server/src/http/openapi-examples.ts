/**
 * Request and response examples for every operation of the OpenAPI document, made from the
 * JSON Schemas the document already holds — the ones derived from the valibot schemas that
 * validate — so an example cannot describe a field the API does not have (issue #18 §1).
 * A documented `example`, `examples`, `default`, `const` or enum value is used as it is.
 */

type JsonSchema = Record<string, unknown>;
type Document = {
	paths: Record<string, Record<string, Operation>>;
	components?: { schemas?: Record<string, JsonSchema> };
};
type MediaType = { schema?: JsonSchema; example?: unknown; examples?: unknown };
type Operation = {
	parameters?: { schema?: JsonSchema; example?: unknown; examples?: unknown }[];
	requestBody?: { content?: Record<string, MediaType> };
	responses?: Record<string, { content?: Record<string, MediaType> }>;
};

const MAX_DEPTH = 8;

/** Realistic values by field name, where the type alone would say little. */
const BY_NAME: Record<string, unknown> = {
	id: "msg_000001",
	partner_id: "prt_000001",
	tenant_id: "tnt_000001",
	message_id: "20261127090000.1234@as2.example.com",
	as2_id: "ACME",
	name: "Acme Supply",
	email: "you@example.com",
	password: "a long password",
	password_confirmation: "a long password",
	url: "https://as2.acme.example/receive",
	content_type: "application/edi-x12",
	filename: "order.edi",
	subject: "Purchase order PO-1001",
	content: "ISA*00*          *00*          *ZZ*ACMECORP~",
};

const BY_FORMAT: Record<string, string> = {
	"date-time": "2026-11-27T09:00:00.000000Z",
	date: "2026-11-27",
	email: "you@example.com",
	uri: "https://as2.acme.example/receive",
	url: "https://as2.acme.example/receive",
	uuid: "3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
	binary: "(the file's bytes)",
};

/** Adds an `example` to every parameter and every request and response media type that has a schema. */
export function addExamples<D extends object>(document: D): D {
	const doc = document as unknown as Document;
	const resolve = (schema: JsonSchema) => resolveRef(schema, doc);
	for (const methods of Object.values(doc.paths ?? {})) {
		for (const operation of Object.values(methods)) {
			if (typeof operation !== "object" || operation === null) continue;
			for (const parameter of operation.parameters ?? []) {
				if (parameter.schema && parameter.example === undefined && parameter.examples === undefined) {
					parameter.example = exampleOf(parameter.schema, resolve);
				}
			}
			const contents = [
				operation.requestBody?.content,
				...Object.values(operation.responses ?? {}).map((response) => response.content),
			];
			for (const content of contents) {
				for (const media of Object.values(content ?? {})) {
					if (media.schema && media.example === undefined && media.examples === undefined) {
						media.example = exampleOf(media.schema, resolve);
					}
				}
			}
		}
	}
	return document;
}

function resolveRef(schema: JsonSchema, doc: Document): JsonSchema {
	const ref = schema.$ref;
	if (typeof ref !== "string" || !ref.startsWith("#/components/schemas/")) return schema;
	return doc.components?.schemas?.[ref.slice("#/components/schemas/".length)] ?? {};
}

/** An example value of `schema`; `name` is the property it is for, if any. */
export function exampleOf(
	given: JsonSchema,
	resolve: (schema: JsonSchema) => JsonSchema = (schema) => schema,
	name?: string,
	depth = 0,
): unknown {
	const schema = resolve(given);
	const documented = documentedValue(schema);
	if (documented !== undefined) return documented;
	const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
	if (alternatives?.length) {
		const chosen = alternatives.find((alternative) => resolve(alternative).type !== "null") ?? alternatives[0]!;
		return exampleOf(chosen, resolve, name, depth);
	}
	if (Array.isArray(schema.allOf)) {
		return Object.assign({}, ...schema.allOf.map((part) => exampleOf(part as JsonSchema, resolve, name, depth)));
	}
	const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
	if (depth > MAX_DEPTH) return type === "array" ? [] : type === "object" ? {} : null;
	switch (type) {
		case "object":
			return objectExample(schema, resolve, depth);
		case "array":
			return schema.items ? [exampleOf(schema.items as JsonSchema, resolve, singular(name), depth + 1)] : [];
		case "integer":
		case "number":
			return numberExample(schema);
		case "boolean":
			return true;
		case "null":
			return null;
		case "string":
			return stringExample(schema, name);
		default:
			return schema.properties ? objectExample(schema, resolve, depth) : null;
	}
}

function documentedValue(schema: JsonSchema): unknown {
	if (schema.example !== undefined) return schema.example;
	if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
	if (schema.const !== undefined) return schema.const;
	if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
	// Query parameters arrive as text: a default written "20" for an integer is still 20.
	if (schema.default !== undefined) {
		if ((schema.type === "integer" || schema.type === "number") && typeof schema.default === "string") {
			return Number(schema.default);
		}
		return schema.default;
	}
	return undefined;
}

function objectExample(schema: JsonSchema, resolve: (schema: JsonSchema) => JsonSchema, depth: number) {
	const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
	return Object.fromEntries(
		Object.entries(properties).map(([key, property]) => [key, exampleOf(property, resolve, key, depth + 1)]),
	);
}

function numberExample(schema: JsonSchema): number {
	const minimum = typeof schema.minimum === "number" ? schema.minimum : undefined;
	const maximum = typeof schema.maximum === "number" ? schema.maximum : undefined;
	if (minimum !== undefined) return minimum;
	return maximum !== undefined ? Math.min(1, maximum) : 1;
}

function stringExample(schema: JsonSchema, name: string | undefined): string {
	// Instants are `…_at` (service/views/schema-types.ts), documented by description, not format.
	const formatName = typeof schema.format === "string" ? schema.format : name?.endsWith("_at") ? "date-time" : "";
	const format = BY_FORMAT[formatName];
	const byName = name !== undefined ? BY_NAME[name] : undefined;
	let value = format ?? (typeof byName === "string" ? byName : (name ?? "text"));
	if (typeof schema.minLength === "number" && value.length < schema.minLength) {
		value = value.padEnd(schema.minLength, "x");
	}
	if (typeof schema.maxLength === "number" && value.length > schema.maxLength) value = value.slice(0, schema.maxLength);
	return value;
}

function singular(name: string | undefined): string | undefined {
	return name?.endsWith("s") ? name.slice(0, -1) : name;
}
