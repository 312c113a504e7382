/**
 * Issue #17, "EPCIS as GS1 writes it", against the built server over real sockets: documents
 * written in the shapes of GS1's published examples (packages/as2-core/test/fixtures/epcis/
 * gs1-style/, several beginning with the bare `<!DOCTYPE project>` that was refused with
 * XML_DOCTYPE_FORBIDDEN) are validated when
 * posted as JSON (fetch) and as multipart (curl -F); one arrives as an inbound AS2 payload and
 * is then found with MATCH_epc patterns written as `urn:epc:id:…*` (EPCIS §8.2.7.1), which
 * found nothing before; and every DOCTYPE that can declare an entity is still refused — with
 * no fetch of the external entity it names.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, type Registered, rawRequest, register } from "./clients.ts";

const GS1_STYLE = fileURLToPath(new URL("../../packages/as2-core/test/fixtures/epcis/gs1-style/", import.meta.url));
/** The GS1-style documents that begin with `<!DOCTYPE project>`. */
const BARE_DOCTYPE = [
	"full-fields/object-event.xml",
	"full-fields/aggregation-event.xml",
	"full-fields/association-event.xml",
	"full-fields/transaction-event.xml",
	"event-hash/object-event-hash-reference.xml",
];
const read = (name: string) => readFileSync(`${GS1_STYLE}${name}`, "utf8");
const PEER = "GS1STYLEPEER";
/** A bounded wait for the indexing job of an inbound payload. */
const INDEXED_WITHIN_MS = 30_000;

let server: BuiltServer;
let user: Registered;
/** A loopback listener that counts requests: an external entity fetched would land here. */
let trap: Server;
let trapHits = 0;
let trapUrl: string;

beforeAll(async () => {
	// Enterprise: no rate limit for the polling of the indexing job below.
	server = await startBuiltServer({ env: { AS2_DEFAULT_PLAN: "enterprise" } });
	user = await register(server.base);
	trap = createServer((_request, response) => {
		trapHits++;
		response.end("<!ENTITY x 'fetched'>");
	});
	await new Promise<void>((resolveListen) => trap.listen(0, "127.0.0.1", resolveListen));
	trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/evil.dtd`;
});
afterAll(async () => {
	await server?.stop();
	await new Promise((resolveClose) => trap?.close(resolveClose));
});

const validate = (document: string) =>
	call(server.base, "POST", "/v1/epcis/validate", {
		token: user.token,
		body: { document, validation_rules: ["schema_compliance"] },
	});

describe("GS1-style documents on POST /v1/epcis/validate", () => {
	it("each one with a bare <!DOCTYPE project>, posted as JSON with fetch, passes the schema", async () => {
		for (const name of BARE_DOCTYPE) {
			const answer = await validate(read(name));
			expect({ name, status: answer.status, errors: answer.json.errors }).toEqual({ name, status: 200, errors: [] });
			expect(answer.json).toMatchObject({ valid: true, epcis_version: "2.0", event_count: 1 });
		}
	});

	it("the same, streamed as multipart by curl -F document=@file", async () => {
		for (const name of BARE_DOCTYPE) {
			const run = await curl([
				...["-o", "-", "-w", "\\n%{http_code}", "-H", `Authorization: Bearer ${user.token}`],
				...["-F", `document=@${GS1_STYLE}${name};type=application/xml`, "-F", "validation_rules=schema_compliance"],
				`${server.base}/v1/epcis/validate`,
			]);
			expect(run.code, run.stdout).toBe(0);
			const lines = run.stdout.trimEnd().split("\n");
			expect({ name, status: Number(lines.pop()) }).toEqual({ name, status: 200 });
			const answer = JSON.parse(lines.join("\n"));
			expect({ name, valid: answer.valid, errors: answer.errors }).toEqual({ name, valid: true, errors: [] });
		}
	});

	it("a GS1-style document with a schema error (1.x extension nesting) is still judged invalid, with the error located", async () => {
		const answer = await validate(read("extensions/object-events-1x-style-extension.xml"));
		expect(answer.status).toBe(200);
		expect(answer.json.valid).toBe(false);
		expect(answer.json.errors[0]).toMatchObject({ rule: "schema_compliance" });
		expect(answer.json.errors[0].line).toBeGreaterThan(0);
	});
});

describe("a GS1-style document received over AS2, then found with MATCH_ patterns", () => {
	it("indexes the inbound payload; urn:epc:id:…* and urn:epc:idpat: patterns find it, others do not", async () => {
		const tenant = await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: user.token });
		const partner = await call(server.base, "POST", "/v1/partners", {
			token: user.token,
			body: { name: "GS1-style Peer", as2_id: PEER, url: "https://peer.example/as2", sign: false, encrypt: false },
		});
		expect(partner.status, partner.text).toBe(201);
		// A plain (unsigned, unencrypted) AS2 message, as a partner on default settings sends it.
		const received = await fetch(`${server.base}/as2/receive`, {
			method: "POST",
			headers: {
				"as2-to": tenant.json.data.as2_id,
				"as2-from": PEER,
				"as2-version": "1.2",
				"message-id": `<gs1-style-${Date.now()}@peer.example>`,
				"content-type": "application/xml",
			},
			body: read("full-fields/transaction-event.xml"),
			signal: AbortSignal.timeout(INDEXED_WITHIN_MS),
		});
		expect(received.status, await received.text()).toBe(200);

		const found = async (parameters: Record<string, unknown>) => {
			const answer = await call(server.base, "POST", "/v1/epcis/query", {
				token: user.token,
				body: { query_type: "SimpleEventQuery", parameters },
			});
			expect(answer.status, answer.text).toBe(200);
			return (answer.json.data as { type: string }[]).map((e) => e.type);
		};
		const deadline = Date.now() + INDEXED_WITHIN_MS;
		while ((await found({})).length === 0) {
			if (Date.now() > deadline) throw new Error(`the payload was not indexed within ${INDEXED_WITHIN_MS} ms`);
			await new Promise((r) => setTimeout(r, 100));
		}

		expect(await found({ MATCH_epc: "urn:epc:id:sgtin:4012345.054321.*" })).toEqual(["TransactionEvent"]);
		expect(await found({ MATCH_epc: "urn:epc:id:sgtin:4012345.*.*" })).toEqual(["TransactionEvent"]);
		expect(await found({ MATCH_epc: "urn:epc:idpat:sgtin:4012345.054321.*" })).toEqual(["TransactionEvent"]);
		expect(await found({ MATCH_parentID: "urn:epc:id:sscc:4012345.*" })).toEqual(["TransactionEvent"]);
		expect(await found({ MATCH_epcClass: "urn:epc:id:sgtin:0614141.077777.*" })).toEqual(["TransactionEvent"]);
		expect(await found({ MATCH_epc: "urn:epc:id:sgtin:4012345.054322.*" })).toEqual([]);
		const misplaced = await call(server.base, "POST", "/v1/epcis/query", {
			token: user.token,
			body: { query_type: "SimpleEventQuery", parameters: { MATCH_epc: "urn:epc:id:sgtin:*.054321.7001" } },
		});
		expect(misplaced.status).toBe(422);
		expect(misplaced.json.error.code).toBe("EPCIS_QUERY_PARAMETER_INVALID");
	});
});

describe("DOCTYPEs that declare something stay refused, over real sockets", () => {
	const example = () => read(BARE_DOCTYPE[0]!);
	const hostile: [string, (xml: string) => string][] = [
		[
			"an external entity (XXE, file:)",
			(xml) => xml.replace("<!DOCTYPE project>", `<!DOCTYPE project [<!ENTITY x SYSTEM "file:///etc/passwd">]>`),
		],
		[
			"an external entity (XXE, http: on loopback)",
			(xml) =>
				xml
					.replace("<!DOCTYPE project>", `<!DOCTYPE project [<!ENTITY x SYSTEM "${trapUrl}">]>`)
					.replace("<action>OBSERVE</action>", "<action>&x;</action>"),
		],
		[
			"a parameter entity",
			(xml) => xml.replace("<!DOCTYPE project>", `<!DOCTYPE project [<!ENTITY % p SYSTEM "${trapUrl}"> %p;]>`),
		],
		["an external DTD", (xml) => xml.replace("<!DOCTYPE project>", `<!DOCTYPE project SYSTEM "${trapUrl}">`)],
		[
			"billion laughs",
			(xml) =>
				xml.replace(
					"<!DOCTYPE project>",
					`<!DOCTYPE project [<!ENTITY l0 "lol">${Array.from({ length: 10 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join("")}]>`,
				),
		],
		[
			"a comment hiding inside a bare DOCTYPE",
			(xml) => xml.replace("<!DOCTYPE project>", "<!DOCTYPE project <!-- [<!ENTITY x 'y'>] -->>"),
		],
		[
			"a second DOCTYPE",
			(xml) => xml.replace("<!DOCTYPE project>", "<!DOCTYPE project><!DOCTYPE project [<!ENTITY x 'y'>]>"),
		],
	];
	for (const [what, build] of hostile) {
		it(`${what}: a parse failure XML_DOCTYPE_FORBIDDEN, nothing fetched (fetch)`, async () => {
			const answer = await validate(build(example()));
			expect(answer.status).toBe(200);
			expect(answer.json.valid).toBe(false);
			expect(answer.json.errors.map((e: { rule: string; code: string }) => `${e.rule}:${e.code}`)).toContain(
				"parse:XML_DOCTYPE_FORBIDDEN",
			);
			expect(trapHits).toBe(0);
		});
	}

	it("an XXE document written on a raw socket gets the same clean answer, and the server goes on", async () => {
		const body = Buffer.from(JSON.stringify({ document: hostile[1]![1](example()) }));
		const port = Number(new URL(server.base).port);
		const answer = await rawRequest(
			port,
			`POST /v1/epcis/validate HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
			[body],
		);
		expect(answer.status).toBe(200);
		expect(answer.raw).toContain("XML_DOCTYPE_FORBIDDEN");
		expect(trapHits).toBe(0);
		server.assertAlive();
		expect((await fetch(`${server.base}/health`)).status).toBe(200);
	});
});
