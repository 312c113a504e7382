import { validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_KIND_NAMES } from "../../src/service/webhooks/event-kinds.ts";
import { createTestApp, type TestApp } from "../helpers/test-app.ts";

let t: TestApp;
beforeAll(() => {
	t = createTestApp();
});
afterAll(() => t.close());

describe("GET /openapi.json", () => {
	it("is a valid OpenAPI 3.1 document", async () => {
		const response = await t.call("GET", "/openapi.json");
		expect(response.status).toBe(200);
		expect(response.json.openapi).toBe("3.1.0");
		const result = await validate(structuredClone(response.json));
		expect(result.valid ? [] : result.errors).toEqual([]);
		expect(result.specification).toBe("OpenAPI");
	});

	it("documents every route the app serves under /auth and /v1", async () => {
		const doc = (await t.call("GET", "/openapi.json")).json as { paths: Record<string, Record<string, unknown>> };
		const documented = new Set(
			Object.entries(doc.paths).flatMap(([path, methods]) =>
				Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
			),
		);
		const served = t.app.routes
			.filter((r) => r.method !== "ALL" && /^\/(v1|auth)\//.test(r.path))
			.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}").replace(/\/$/, "")}`);
		expect(served.length).toBeGreaterThan(10);
		for (const route of served) expect(documented, route).toContain(route);
	});

	it("describes the error shapes and the bearer scheme", async () => {
		const doc = (await t.call("GET", "/openapi.json")).json;
		expect(doc.components.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
		const tenants = doc.paths["/v1/tenants"].post;
		expect(Object.keys(tenants.responses)).toEqual(
			expect.arrayContaining(["201", "401", "403", "415", "422", "429", "503"]),
		);
		expect(tenants.responses["422"].content["application/json"].schema.required).toEqual([
			"message",
			"errors",
			"error",
		]);
		expect(Object.keys(tenants.requestBody.content)).toEqual([
			"application/json",
			"application/x-www-form-urlencoded",
			"multipart/form-data",
		]);
	});

	it("documents every event kind of the spec in the webhooks section, with its envelope and data", async () => {
		const doc = (await t.call("GET", "/openapi.json")).json;
		expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_KIND_NAMES].sort());
		const sent = doc.webhooks["message.sent"].post;
		const schema = sent.requestBody.content["application/json"].schema;
		expect(schema.required).toEqual(["event", "data", "timestamp", "api_version"]);
		expect(schema.properties.data.required).toEqual(
			expect.arrayContaining(["id", "message_id", "partner", "status", "direction", "sent_at", "transmission_time_ms"]),
		);
		expect(sent.parameters.map((p: { name: string }) => p.name)).toContain("x-signature");
		expect(doc.webhooks["billing.payment_failed"].post.description).toMatch(/Not emitted/);
	});
});

describe("the OpenAPI document's bodies and examples (issue #18)", () => {
	type Media = { schema?: Record<string, unknown>; example?: unknown };
	type Operation = {
		parameters?: { name: string; example?: unknown }[];
		requestBody?: { content: Record<string, Media> };
		responses: Record<string, { content?: Record<string, Media> }>;
	};
	const operations = async () => {
		const doc = (await t.call("GET", "/openapi.json")).json as { paths: Record<string, Record<string, Operation>> };
		return Object.entries(doc.paths).flatMap(([path, methods]) =>
			Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
		);
	};

	it("gives every operation a request example and a response example, made from its schemas", async () => {
		const all = await operations();
		expect(all.length).toBeGreaterThan(40);
		for (const { name, operation } of all) {
			for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
				expect(media.example, `${name} request ${type}`).toBeDefined();
			}
			for (const parameter of operation.parameters ?? []) {
				expect(parameter.example, `${name} parameter ${parameter.name}`).toBeDefined();
			}
			const responses = Object.entries(operation.responses).flatMap(([status, response]) =>
				Object.entries(response.content ?? {}).map(([type, media]) => ({ at: `${status} ${type}`, media })),
			);
			expect(responses.length, `${name} has no response content`).toBeGreaterThan(0);
			for (const { at, media } of responses) {
				if (media.schema) expect(media.example, `${name} response ${at}`).toBeDefined();
			}
		}
		const tenant = all.find((o) => o.name === "POST /v1/tenants")!.operation;
		expect(Object.keys(tenant.requestBody!.content["application/json"]!.example as object)).toContain("name");
	});

	it("names the file part of POST /v1/messages (binary) and its real required fields", async () => {
		const submit = (await operations()).find((o) => o.name === "POST /v1/messages")!.operation;
		const multipart = submit.requestBody!.content["multipart/form-data"]!.schema as {
			properties: Record<string, Record<string, unknown>>;
			required: string[];
		};
		expect(multipart.properties.file).toMatchObject({ type: "string", format: "binary" });
		expect(multipart.properties).not.toHaveProperty("payload");
		expect([...multipart.required].sort()).toEqual(["content_type", "file", "partner_id"]);
		const json = submit.requestBody!.content["application/json"]!.schema as { required: string[] };
		expect([...json.required].sort()).toEqual(["content_type", "partner_id", "payload"]);
	});

	it("documents a certificate upload as a string or a binary part, never anyOf [string, {}]", async () => {
		const upload = (await operations()).find((o) => o.name === "POST /v1/partners/{partner_id}/certificates")!.operation
			.requestBody!.content;
		const field = (type: string) =>
			(upload[type]!.schema as { properties: Record<string, unknown> }).properties.certificate;
		expect(field("application/json")).toMatchObject({ type: "string" });
		expect(field("multipart/form-data")).toMatchObject({ type: "string", format: "binary" });
		const text = JSON.stringify((await t.call("GET", "/openapi.json")).json);
		expect(text).not.toContain('{"type":"string"},{}]');
		expect(text).not.toContain(",{}]");
	});
});
