/**
 * Issue #16, defect 7: uploads as curl, fetch and partners send them, against the built server
 * over real sockets. UTF-8 file names arrive intact (multipart parts and inbound AS2), an empty
 * payload or a missing or unsupported content type is refused the same way in JSON and
 * multipart, and a form that does not parse is a 422 naming the problem — never a 400
 * transmission_error, never a blob left behind.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, curl, rawRequest } from "./clients.ts";
import {
	BOUNDARY,
	filesOf,
	multipartBody,
	requestFinished,
	requestHead,
	setUpUploadWorld,
	type UploadWorld,
} from "./upload-requests.ts";

let server: BuiltServer;
let world: UploadWorld;
let scratch: string;

beforeAll(async () => {
	server = await startBuiltServer();
	world = await setUpUploadWorld(server);
	scratch = mkdtempSync(join(tmpdir(), "as2kit-blackbox-uploads-"));
});
afterAll(async () => {
	rmSync(scratch, { recursive: true, force: true });
	await server.stop();
});

/** `curl` against /v1/messages with the session; the body parsed, the status from `-w`. */
async function curlMessages(args: string[]) {
	const run = await curl([
		...["-o", "-", "-w", "\\n%{http_code}", "-H", `Authorization: Bearer ${world.token}`],
		...args,
		`${server.base}/v1/messages`,
	]);
	expect(run.code, run.stdout).toBe(0);
	const lines = run.stdout.trimEnd().split("\n");
	return { status: Number(lines.pop()), json: JSON.parse(lines.join("\n")) };
}

/** A file in the scratch directory, named as given. */
function scratchFile(name: string, content: string | Uint8Array): string {
	const path = join(scratch, name);
	writeFileSync(path, content);
	return path;
}

/** Runs `refused`, then checks that no file was left behind by it. */
async function leavesNoFile<T>(refused: () => Promise<T>): Promise<T> {
	const before = filesOf(server);
	const result = await refused();
	expect(filesOf(server)).toEqual(before);
	return result;
}

describe("file names", () => {
	it("keeps a UTF-8 file name sent by curl -F, and downloads it under RFC 8187 filename*", async () => {
		const name = "Bestellung Müller 注文.x12";
		const sent = await curlMessages([
			...["-F", `partner_id=${world.partnerId}`, "-F", "content_type=application/edi-x12"],
			...["-F", `file=@${scratchFile(name, "ISA*00*~")}`],
		]);
		expect(sent.status).toBe(202);
		const message = await call(server.base, "GET", `/v1/messages/${sent.json.data.id}`, { token: world.token });
		expect(message.json.data.filename).toBe(name);
		const download = await fetch(`${server.base}/v1/messages/${sent.json.data.id}/payload`, {
			headers: { authorization: `Bearer ${world.token}` },
		});
		expect(await download.text()).toBe("ISA*00*~");
		expect(download.headers.get("content-disposition")).toBe(
			`attachment; filename="Bestellung M_ller __.x12"; filename*=UTF-8''${encodeURIComponent(name)}`,
		);
	});

	// OpenAS2 puts the file name's UTF-8 bytes raw in Content-Disposition; an older sender may put Latin-1.
	for (const [encoding, bytes] of [
		["raw UTF-8", Buffer.from("Bestellung-äöü.x12", "utf8")],
		["Latin-1", Buffer.from("Bestellung-äöü.x12", "latin1")],
	] as const) {
		it(`reads an inbound AS2 message's ${encoding} file name as Bestellung-äöü.x12`, async () => {
			const messageId = `${randomUUID()}@partner.example`;
			const body = "ISA*00*          *00*          *ZZ*PARTNER~";
			const head = Buffer.concat([
				Buffer.from(
					[
						"POST /as2/receive HTTP/1.1",
						"Host: 127.0.0.1",
						"AS2-Version: 1.2",
						`AS2-From: ${world.partnerAs2Id}`,
						`AS2-To: ${world.tenantAs2Id}`,
						`Message-ID: <${messageId}>`,
						"Content-Type: application/edi-x12",
						// A sync MDN: the message is processed before the answer.
						"Disposition-Notification-To: as2@partner.example",
						`Content-Length: ${body.length}`,
						"Connection: close",
						'Content-Disposition: attachment; filename="',
					].join("\r\n"),
					"latin1",
				),
				bytes,
				Buffer.from('"\r\n\r\n', "latin1"),
			]);
			// Bytes, not a string: rawRequest would write a string as UTF-8.
			const answer = await rawRequest(server.port, "", [head, body]);
			expect(answer.status).toBe(200);
			expect(answer.raw).toMatch(/Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
			const list = await call(server.base, "GET", "/v1/messages?direction=inbound&per_page=100", {
				token: world.token,
			});
			const received = list.json.data.find((m: { message_id: string }) => m.message_id === messageId);
			expect(received?.filename).toBe("Bestellung-äöü.x12");
		});
	}
});

describe("what a message upload must carry", () => {
	it("refuses a 0-byte file (curl -F) and an empty payload.content (fetch) alike: 422", async () => {
		const empty = await leavesNoFile(() =>
			curlMessages([
				...["-F", `partner_id=${world.partnerId}`, "-F", "content_type=application/edi-x12"],
				...["-F", `file=@${scratchFile("empty.x12", "")}`],
			]),
		);
		expect(empty.status).toBe(422);
		expect(empty.json.errors).toEqual({ file: ["must not be empty"] });
		const json = await call(server.base, "POST", "/v1/messages", {
			token: world.token,
			body: { partner_id: world.partnerId, content_type: "application/edi-x12", payload: { content: "" } },
		});
		expect(json.status).toBe(422);
		expect(json.json.error.type).toBe("validation_error");
		expect(Object.keys(json.json.errors)).toEqual(["payload.content"]);
	});

	it("requires content_type in a multipart send, as in JSON: 422", async () => {
		const form = await leavesNoFile(() =>
			curlMessages(["-F", `partner_id=${world.partnerId}`, "-F", `file=@${scratchFile("a.x12", "ISA*00*~")}`]),
		);
		expect(form.status).toBe(422);
		expect(form.json.errors).toEqual({ content_type: ["is required"] });
		const json = await call(server.base, "POST", "/v1/messages", {
			token: world.token,
			body: { partner_id: world.partnerId, payload: { content: "ISA*00*~" } },
		});
		expect(json.status).toBe(422);
		expect(json.json.errors).toEqual({ content_type: ["is required"] });
	});

	it("answers 400 INVALID_CONTENT_TYPE for a type outside the spec's list, in multipart and JSON", async () => {
		const form = await leavesNoFile(() =>
			curlMessages([
				...["-F", `partner_id=${world.partnerId}`, "-F", "content_type=application/x-msdownload"],
				...["-F", `file=@${scratchFile("setup.exe", "MZ\x90\x00")}`],
			]),
		);
		expect(form.status).toBe(400);
		expect(form.json.error).toMatchObject({ type: "validation_error", code: "INVALID_CONTENT_TYPE" });
		const json = await call(server.base, "POST", "/v1/messages", {
			token: world.token,
			body: {
				partner_id: world.partnerId,
				content_type: "application/x-msdownload",
				payload: { content: "TVqQAA==", encoding: "base64" },
			},
		});
		expect(json.status).toBe(400);
		expect(json.json.error).toMatchObject({ type: "validation_error", code: "INVALID_CONTENT_TYPE" });
	});
});

describe("a multipart body that does not parse is a 422 naming the problem", () => {
	const field = (name: string, value: string) => ({ name, value });
	const valid = () => [
		field("partner_id", world.partnerId),
		field("content_type", "application/edi-x12"),
		{ name: "file", value: "x".repeat(300_000), filename: "order.x12" },
	];
	const cases: [string, () => { type: string; body: Uint8Array }, RegExp][] = [
		[
			"a boundary that is not the body's",
			() => ({ type: "multipart/form-data; boundary=not-the-one", body: multipartBody(valid()) }),
			/does not contain the boundary/,
		],
		[
			"a body cut before its close delimiter",
			() => {
				const body = multipartBody(valid());
				return { type: `multipart/form-data; boundary=${BOUNDARY}`, body: body.subarray(0, body.byteLength - 200) };
			},
			/without the close delimiter/,
		],
		[
			"more than 100 parts",
			() => ({
				type: `multipart/form-data; boundary=${BOUNDARY}`,
				body: multipartBody(Array.from({ length: 101 }, (_, i) => field(`note${i}`, "x"))),
			}),
			/more than 100 parts/,
		],
		[
			"part headers of 20 KB",
			() => ({
				type: `multipart/form-data; boundary=${BOUNDARY}`,
				body: Buffer.from(
					`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\nX-Padding: ${"p".repeat(20_000)}\r\n\r\nx\r\n--${BOUNDARY}--\r\n`,
				),
			}),
			/header block is longer/,
		],
		["no boundary", () => ({ type: "multipart/form-data", body: multipartBody(valid()) }), /boundary/],
	];
	for (const [what, build, problem] of cases) {
		it(what, async () => {
			const { type, body } = build();
			const requestId = randomUUID();
			const answer = await leavesNoFile(async () => {
				const head = requestHead(
					{ method: "POST", path: "/v1/messages" },
					{ authorization: `Bearer ${world.token}`, "content-type": type, connection: "close" },
					body.byteLength,
					requestId,
				);
				const response = await rawRequest(server.port, head, [body]);
				await requestFinished(server, requestId);
				return response;
			});
			expect(answer.status).toBe(422);
			const json = JSON.parse(answer.raw.slice(answer.raw.indexOf("\r\n\r\n") + 4));
			expect(json.error).toMatchObject({ type: "validation_error", code: "VALIDATION_FAILED" });
			expect(json.errors.request[0]).toMatch(problem);
		});
	}
});
