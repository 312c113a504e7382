/**
 * The OpenAPI document as the built server serves it (issue #18 §1), fetched with curl: every
 * operation carries request and response examples, the message upload names its `file` part.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { curl } from "./clients.ts";

// biome-ignore lint/suspicious/noExplicitAny: the document as JSON
type Json = any;

describe("GET /openapi.json from the built server", () => {
	let server: BuiltServer;
	beforeAll(async () => {
		server = await startBuiltServer();
	});
	afterAll(() => server.stop());

	it("gives every operation examples and POST /v1/messages its binary file part", async () => {
		const { stdout, code } = await curl([`${server.base}/openapi.json`]);
		expect(code).toBe(0);
		const doc = JSON.parse(stdout);
		let operations = 0;
		for (const [path, methods] of Object.entries<Json>(doc.paths)) {
			for (const [method, operation] of Object.entries<Json>(methods)) {
				operations++;
				const where = `${method.toUpperCase()} ${path}`;
				for (const media of Object.values<Json>(operation.requestBody?.content ?? {})) {
					expect(media.example, `${where} request`).toBeDefined();
				}
				const contents = Object.values<Json>(operation.responses).flatMap((response) =>
					Object.values<Json>(response.content ?? {}),
				);
				expect(contents.length, `${where} has no response content`).toBeGreaterThan(0);
				for (const media of contents.filter((media) => media.schema)) {
					expect(media.example, `${where} response`).toBeDefined();
				}
			}
		}
		expect(operations).toBeGreaterThan(40);
		const multipart = doc.paths["/v1/messages"].post.requestBody.content["multipart/form-data"];
		expect(multipart.schema.properties.file).toMatchObject({ type: "string", format: "binary" });
		expect(multipart.schema.required).toContain("file");
		expect(multipart.example.file).toBeDefined();
	});
});
