/**
 * What the generated black-box suites (operations.test.ts, hostile-input.test.ts) need: the
 * operations of the built server's `/openapi.json`, real objects for every path parameter,
 * sample bodies built from each operation's request schema, and a loopback receiver that
 * every URL the server may call points at.
 *
 * No test here reaches beyond 127.0.0.1: the server runs with AS2_ALLOW_HTTP=1 and
 * AS2_ALLOW_PRIVATE_TARGETS=1 (on-premise mode), and every partner, MDN and webhook URL the
 * fixtures and sample bodies give is the receiver's.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { call, type Registered, register } from "./clients.ts";

/** The environment of a server whose outbound calls may go to the loopback receiver. */
export const LOOPBACK_TARGETS_ENV = { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1" };

export interface Operation {
	method: string;
	/** The documented path with `{param}` placeholders. */
	path: string;
	/** Body media types the document declares, empty when the operation takes no body. */
	mediaTypes: string[];
	/** The JSON schema of the body (the same for every media type here). */
	bodySchema: JsonSchema | null;
	/** No credential (security: []). */
	public: boolean;
	pathParams: string[];
}

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema as the document gives it
export type JsonSchema = Record<string, any>;

/** Every operation of the document, in its order. */
export async function documentedOperations(base: string): Promise<Operation[]> {
	const document = (await call(base, "GET", "/openapi.json")).json;
	const operations: Operation[] = [];
	for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, JsonSchema>>)) {
		for (const [method, op] of Object.entries(methods)) {
			const content = (op.requestBody?.content ?? {}) as Record<string, { schema?: JsonSchema }>;
			operations.push({
				method: method.toUpperCase(),
				path,
				mediaTypes: Object.keys(content),
				bodySchema: content["application/json"]?.schema ?? Object.values(content)[0]?.schema ?? null,
				public: Array.isArray(op.security) && op.security.length === 0,
				pathParams: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
			});
		}
	}
	return operations;
}

/** A local HTTP server answering 200 to anything: the partner, MDN and webhook target of the fixtures. */
export interface LoopbackReceiver {
	url: string;
	hits(): number;
	close(): Promise<void>;
}

export async function startLoopbackReceiver(): Promise<LoopbackReceiver> {
	let hits = 0;
	const server: Server = createServer((request, response) => {
		hits++;
		request.resume();
		request.on("end", () => response.writeHead(200, { "content-type": "text/plain" }).end("ok"));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		hits: () => hits,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** Real objects of one account, by the path parameter that names them. */
export interface Fixtures {
	user: Registered;
	token: string;
	ids: Record<string, string>;
	/** The id of a master partner, for `/v1/accounts/{account_id}/partners/{partner_id}`. */
	masterPartnerId: string;
	certificatePem: string;
	receiver: LoopbackReceiver;
}

let unique = 0;
export const uniqueSuffix = () => `${process.pid}${Date.now().toString(36)}${++unique}`.toUpperCase();

/** A registered account with one of every object a path parameter names. */
export async function createFixtures(base: string, receiver: LoopbackReceiver): Promise<Fixtures> {
	const user = await register(base);
	const token = user.token;
	const created = async (path: string, body: Record<string, unknown>) => {
		const response = await call(base, "POST", path, { token, body });
		if (response.status >= 300) throw new Error(`fixture ${path}: ${response.status} ${response.text}`);
		return response.json;
	};
	const key = await created("/v1/api-keys", { name: "fixture key", scope: "account", permissions: ["*"] });
	const partner = await created("/v1/partners", {
		name: "Fixture Partner",
		as2_id: `FIXTURE${uniqueSuffix()}`,
		url: `${receiver.url}/as2`,
		sign: false,
		encrypt: false,
	});
	const master = await created(`/v1/accounts/${user.accountId}/partners`, {
		name: "Fixture Master",
		as2_id: `MASTER${uniqueSuffix()}`,
		url: `${receiver.url}/as2`,
	});
	const message = await created("/v1/messages", {
		partner_id: partner.data.id,
		content_type: "text/plain",
		payload: { content: "fixture payload" },
	});
	const webhook = await created("/v1/webhook-endpoints", { url: `${receiver.url}/hook`, events: ["webhook.test"] });
	const delivery = await created(`/v1/webhook-endpoints/${webhook.data.id}/test`, {});
	const certificates = await call(base, "GET", "/v1/certificates", { token });
	const certificate = certificates.json.data[0];
	if (!certificate) throw new Error(`no identity certificate: ${certificates.text}`);
	return {
		user,
		token,
		ids: {
			key_id: key.data.id,
			tenant_id: user.tenantId,
			partner_id: partner.data.id,
			account_id: user.accountId,
			cert_id: certificate.id,
			message_id: message.data.id,
			webhook_id: webhook.data.id,
			delivery_id: delivery.data.delivery_id,
			// The first attempt of the message (…/attempts/{number}/request): an ordinal, not an id.
			number: "1",
		},
		masterPartnerId: master.data.id,
		certificatePem: certificate.certificate_pem,
		receiver,
	};
}

/**
 * The documented path with each parameter replaced by its fixture (a master partner under
 * /v1/accounts), or the last one by `lastParam` (percent-encoded) when given.
 */
export function fillPath(operation: Operation, fixtures: Fixtures, lastParam?: string): string {
	const last = operation.pathParams.at(-1);
	return operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
		if (lastParam !== undefined && name === last) return lastParam;
		if (name === "partner_id" && operation.path.startsWith("/v1/accounts/")) return fixtures.masterPartnerId;
		const id = fixtures.ids[name];
		if (id === undefined) throw new Error(`no fixture for {${name}} of ${operation.method} ${operation.path}`);
		return id;
	});
}

const EPCIS_DOCUMENT =
	'<?xml version="1.0" encoding="UTF-8"?><epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0" creationDate="2019-04-02T14:05:00.000+01:00"><EPCISBody><EventList><ObjectEvent><eventTime>2019-04-02T14:05:00.000+01:00</eventTime><eventTimeZoneOffset>+01:00</eventTimeZoneOffset><epcList><epc>urn:epc:id:sgtin:4012345.011111.987</epc></epcList><action>OBSERVE</action></ObjectEvent></EventList></EPCISBody></epcis:EPCISDocument>';

/**
 * A body with the schema's required fields: values that make sense where the field name says
 * what it holds (an id of a fixture, the receiver's URL, a fresh as2_id), else the first enum
 * value or a plain value of the type. Optional fields are left out, so no update changes more
 * than it must.
 */
export function sampleBody(schema: JsonSchema, fixtures: Fixtures, field = ""): unknown {
	const hinted = hint(field, fixtures);
	if (hinted !== undefined) return hinted;
	if (schema.enum) return schema.enum[0];
	const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
	if (variants) return sampleBody(variants.find((s) => s.type && s.type !== "null") ?? variants[0]!, fixtures, field);
	switch (schema.type) {
		case "object": {
			const out: Record<string, unknown> = {};
			for (const name of (schema.required ?? []) as string[]) {
				out[name] = sampleBody(schema.properties?.[name] ?? {}, fixtures, name);
			}
			return out;
		}
		case "array":
			return [sampleBody(schema.items ?? {}, fixtures, field)];
		case "integer":
		case "number":
			return schema.minimum ?? 1;
		case "boolean":
			return true;
		default:
			if (schema.format === "date-time") return new Date(Date.now() + 86_400_000).toISOString();
			return "sample";
	}
}

function hint(field: string, fixtures: Fixtures): unknown {
	switch (field) {
		case "partner_id":
		case "tenant_id":
		case "message_id":
			return fixtures.ids[field];
		case "url":
			return `${fixtures.receiver.url}/target`;
		case "as2_id":
			return `SAMPLE${uniqueSuffix()}`;
		case "email":
			return `sample${uniqueSuffix().toLowerCase()}@example.com`;
		case "password":
		case "password_confirmation":
			return "correct horse battery";
		case "content_type":
			return "text/plain";
		case "content":
			return "sample payload";
		case "document":
			return EPCIS_DOCUMENT;
		case "query_type":
			return "SimpleEventQuery";
		case "certificate":
			return fixtures.certificatePem;
		case "events":
			return ["webhook.test"];
		default:
			return undefined;
	}
}

/** `value` as form fields the server reads back into it: `a[b]` nests, `a[]` lists. */
export function formFields(value: unknown, prefix = ""): [string, string][] {
	if (Array.isArray(value)) return value.flatMap((item) => formFields(item, `${prefix}[]`));
	if (typeof value === "object" && value !== null) {
		return Object.entries(value).flatMap(([key, item]) => formFields(item, prefix ? `${prefix}[${key}]` : key));
	}
	return [[prefix, String(value)]];
}

/** The request body of `value` in `mediaType`, with the Content-Type it needs (fetch sets the multipart one). */
export function encodeBody(
	value: unknown,
	mediaType: string,
): { body: string | FormData; headers: Record<string, string> } {
	if (mediaType === "application/x-www-form-urlencoded") {
		return {
			body: new URLSearchParams(formFields(value)).toString(),
			headers: { "content-type": "application/x-www-form-urlencoded" },
		};
	}
	if (mediaType === "multipart/form-data") {
		const form = new FormData();
		for (const [name, field] of formFields(value)) form.append(name, field);
		return { body: form, headers: {} };
	}
	return { body: JSON.stringify(value), headers: { "content-type": mediaType } };
}
