/**
 * Compatibility profiles (issue #17), against the built server over real sockets: the catalogue
 * with curl, a partner created on a profile with fetch and its detail, the profile cleared with
 * a hand-written request on a raw socket, and hostile bodies (an unknown, oversized or
 * non-string profile) refused with a 422 that names the field.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, type Registered, rawRequest, register } from "./clients.ts";

let server: BuiltServer;
let owner: Registered;

beforeAll(async () => {
	server = await startBuiltServer({ env: { AS2_DEFAULT_PLAN: "enterprise" } });
	owner = await register(server.base);
}, 120_000);
afterAll(async () => {
	await server?.stop();
});

const STRICT = {
	signed_attributes: true,
	algorithm_protection: true,
	transfer_encoding: "binary",
	compress_order: "before-sign",
	key_encryption: "rsa",
	chunked: false,
};
// Never contacted: partners are only created and read here.
const partnerBody = (as2Id: string, compatibility: unknown) => ({
	name: `Profile partner ${as2Id}`,
	as2_id: as2Id,
	url: "https://as2.partner.example/receive",
	compatibility,
});

describe("GET /v1/compatibility-profiles over real sockets", () => {
	it("curl lists the nine profiles; ibm-sterling turns signed attributes and algorithm protection off", async () => {
		const { stdout, code } = await curl([
			`${server.base}/v1/compatibility-profiles`,
			"-H",
			`Authorization: Bearer ${owner.token}`,
			"-w",
			"\n%{http_code}",
		]);
		expect(code).toBe(0);
		const newline = stdout.lastIndexOf("\n");
		expect(stdout.slice(newline + 1)).toBe("200");
		const profiles = JSON.parse(stdout.slice(0, newline)).data as { name: string; switches: object; why: string }[];
		expect(profiles.map((p) => p.name)).toEqual([
			"default",
			"ibm-sterling",
			"mendelson",
			"openas2",
			"pyas2",
			"aws-transfer-family",
			"cleo",
			"axway",
			"seeburger",
		]);
		expect(profiles.find((p) => p.name === "ibm-sterling")?.switches).toEqual({
			...STRICT,
			signed_attributes: false,
			algorithm_protection: false,
		});
		server.assertAlive();
	});

	it("curl without a credential gets 401", async () => {
		const { stdout } = await curl([
			`${server.base}/v1/compatibility-profiles`,
			"-o",
			"/dev/null",
			"-w",
			"%{http_code}",
		]);
		expect(stdout).toBe("401");
	});

	it("is in /openapi.json with its access rule", async () => {
		const document = (await call(server.base, "GET", "/openapi.json")).json;
		const operation = document.paths["/v1/compatibility-profiles"]?.get;
		expect(operation?.["x-access"]).toEqual({ permission: null, reach: "tenant" });
	});
});

describe("a partner on a profile over real sockets", () => {
	it("fetch creates a partner on ibm-sterling with one switch over it; the detail shows both views", async () => {
		const created = await call(server.base, "POST", "/v1/partners", {
			token: owner.token,
			body: partnerBody("PROFILE-FETCH", { profile: "ibm-sterling", chunked: true }),
		});
		expect(created.status, created.text).toBe(201);
		const id = created.json.data.id;
		const detail = (await call(server.base, "GET", `/v1/partners/${id}`, { token: owner.token })).json.data;
		expect(detail.compatibility).toEqual({ profile: "ibm-sterling", chunked: true });
		expect(detail.effective_compatibility).toEqual({
			...STRICT,
			signed_attributes: false,
			algorithm_protection: false,
			chunked: true,
		});
	});

	it("a raw-socket PATCH clears the profile; the partner's own switch stays", async () => {
		const created = await call(server.base, "POST", "/v1/partners", {
			token: owner.token,
			body: partnerBody("PROFILE-RAW", { profile: "axway", chunked: true }),
		});
		expect(created.status, created.text).toBe(201);
		const id = created.json.data.id;
		const body = JSON.stringify({ compatibility: { profile: null } });
		const response = await rawRequest(
			server.port,
			[
				`PATCH /v1/partners/${id} HTTP/1.1`,
				"Host: 127.0.0.1",
				`Authorization: Bearer ${owner.token}`,
				"Content-Type: application/json",
				`Content-Length: ${Buffer.byteLength(body)}`,
				"Connection: close",
				"",
				"",
			].join("\r\n"),
			[body],
		);
		expect(response.status, response.raw).toBe(200);
		const detail = (await call(server.base, "GET", `/v1/partners/${id}`, { token: owner.token })).json.data;
		expect(detail.compatibility).toEqual({ profile: null, chunked: true });
		expect(detail.effective_compatibility).toEqual({ ...STRICT, chunked: true });
	});

	it.each([
		["an unknown profile", "sterling"],
		["an oversized profile", "x".repeat(100_000)],
		["a number", 7],
		["an object", { name: "ibm-sterling" }],
	])("%s is a 422 naming compatibility.profile, and nothing is created", async (_label, profile) => {
		const response = await call(server.base, "POST", "/v1/partners", {
			token: owner.token,
			body: partnerBody("PROFILE-HOSTILE", { profile }),
		});
		expect(response.status, response.text.slice(0, 300)).toBe(422);
		expect(Object.keys(response.json.errors)).toEqual(["compatibility.profile"]);
		const list = await call(server.base, "GET", "/v1/partners?limit=100", { token: owner.token });
		expect(list.json.data.map((p: { as2_id: string }) => p.as2_id)).not.toContain("PROFILE-HOSTILE");
		server.assertAlive();
	});
});
