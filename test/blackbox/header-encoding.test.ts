/**
 * Issue #16, defect 8, over real sockets: a subject beyond US-ASCII goes to the partner as RFC
 * 2047 encoded-words (the raw request head, read off a loopback socket, is US-ASCII only), an
 * inbound subject however a partner wrote it is stored as its text, and header values that
 * could not be sent are refused at submit (422) for fetch, curl and raw-socket clients alike.
 */
import { createServer, type Server, type Socket } from "node:net";
import { decodeHeaderText } from "@as2kit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuiltServer, startBuiltServer } from "./built-server.ts";
import { call, createKey, curl, rawRequest, register } from "./clients.ts";

const SUBJECT = "Bestellung Müller 注文 ✓";
const WAIT_MS = 30_000;

interface Recorded {
	/** The request line and headers, one char per octet. */
	head: string;
	body: Buffer;
}

/** A partner's AS2 endpoint that records each request's raw bytes and answers 200. */
function startRecorder(): Promise<{ server: Server; port: number; next(): Promise<Recorded>; count(): number }> {
	const received: Recorded[] = [];
	const waiting: Array<(request: Recorded) => void> = [];
	let taken = 0;
	const server = createServer((socket: Socket) => {
		let buffer = Buffer.alloc(0);
		socket.on("error", () => {});
		socket.on("data", (chunk) => {
			buffer = Buffer.concat([buffer, chunk]);
			const end = buffer.indexOf("\r\n\r\n");
			if (end < 0) return;
			const head = buffer.subarray(0, end).toString("latin1");
			const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
			if (buffer.length < end + 4 + length) return;
			const request = { head, body: buffer.subarray(end + 4, end + 4 + length) };
			socket.end("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
			const waiter = waiting.shift();
			if (waiter) waiter(request);
			else received.push(request);
			taken++;
		});
	});
	return new Promise((resolve) =>
		server.listen(0, "127.0.0.1", () =>
			resolve({
				server,
				port: (server.address() as { port: number }).port,
				count: () => taken,
				next: () =>
					new Promise((resolveRequest, reject) => {
						const ready = received.shift();
						if (ready) return resolveRequest(ready);
						const timer = setTimeout(() => reject(new Error("the partner received nothing")), WAIT_MS);
						waiting.push((request) => {
							clearTimeout(timer);
							resolveRequest(request);
						});
					}),
			}),
		),
	);
}

/** Polls `read` every 100 ms until it returns a value, for at most WAIT_MS. */
async function until<T>(read: () => Promise<T | null | undefined>, what: string): Promise<T> {
	const deadline = Date.now() + WAIT_MS;
	for (;;) {
		const value = await read();
		if (value !== null && value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 100));
	}
}

const headerOf = (head: string, name: string) => new RegExp(`\\r\\n${name}: ([^\\r\\n]*)`, "i").exec(head)?.[1];

/** Decodes `=?UTF-8?B?…?=` words by hand: a second reading, independent of as2-core's decoder. */
function decodeBWords(value: string): string {
	const words = value.split(" ").map((word) => /^=\?UTF-8\?B\?([A-Za-z0-9+/=]+)\?=$/.exec(word));
	if (words.some((w) => !w)) throw new Error(`not B encoded-words: ${value}`);
	return Buffer.concat(words.map((w) => Buffer.from(w![1]!, "base64"))).toString("utf8");
}

let server: BuiltServer;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
let live: string;
let testKey: string;
let tenantAs2Id: string;
let recorderPartner: string;

beforeAll(async () => {
	recorder = await startRecorder();
	// The partner is on loopback over http: both settings are needed once the SSRF guard is in.
	server = await startBuiltServer({ env: { AS2_ALLOW_HTTP: "1", AS2_ALLOW_PRIVATE_TARGETS: "1" } });
	const owner = await register(server.base);
	live = await createKey(server.base, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	testKey = await createKey(server.base, owner.token, {
		scope: "tenant",
		tenant_id: owner.tenantId,
		environment: "test",
		permissions: ["*"],
	});
	tenantAs2Id = (await call(server.base, "GET", `/v1/tenants/${owner.tenantId}`, { token: owner.token })).json.data
		.as2_id;
	const partner = await call(server.base, "POST", "/v1/partners", {
		token: live,
		body: {
			name: "Recorder",
			as2_id: "RECORDER",
			url: `http://127.0.0.1:${recorder.port}/as2`,
			sign: false,
			encrypt: false,
			mdn_mode: "none",
		},
	});
	expect(partner.status, partner.text).toBe(201);
	recorderPartner = partner.json.data.id;
	const sender = await call(server.base, "POST", "/v1/partners", {
		token: live,
		body: { name: "Raw sender", as2_id: "RAWSENDER", url: "http://127.0.0.1:9/as2", sign: false, encrypt: false },
	});
	expect(sender.status, sender.text).toBe(201);
}, 120_000);

afterAll(async () => {
	await new Promise((resolve) => recorder?.server.close(resolve));
	await server?.stop();
});

const submit = (token: string, body: Record<string, unknown>) =>
	call(server.base, "POST", "/v1/messages", {
		token,
		body: {
			partner_id: recorderPartner,
			content_type: "application/edi-x12",
			payload: { content: "ISA*00*~" },
			...body,
		},
	});

async function settledStatus(id: string, token = live): Promise<Record<string, unknown>> {
	return until(async () => {
		const message = (await call(server.base, "GET", `/v1/messages/${id}`, { token })).json?.data;
		return ["sent", "delivered", "failed"].includes(message?.status) ? message : null;
	}, `message ${id} to settle`);
}

describe("a live send's Subject on the wire", () => {
	it("is an RFC 2047 encoded-word that decodes back, the head US-ASCII only, custom headers as given", async () => {
		const sent = await submit(live, { subject: SUBJECT, headers: { "X-Order-Ref": "PO-4711" } });
		expect(sent.status, sent.text).toBe(202);
		const request = await recorder.next();
		expect(request.head).toMatch(/^[\x20-\x7e\r\n]*$/);
		const subject = headerOf(request.head, "Subject")!;
		expect(subject).toBe("=?UTF-8?B?QmVzdGVsbHVuZyBNw7xsbGVyIOazqOaWhyDinJM=?=");
		expect(decodeBWords(subject)).toBe(SUBJECT);
		expect(decodeHeaderText(subject)).toBe(SUBJECT);
		expect(headerOf(request.head, "X-Order-Ref")).toBe("PO-4711");
		const message = await settledStatus(sent.json.data.id);
		expect(message).toMatchObject({ status: "sent", subject: SUBJECT });
	});

	it("encodes a Latin-1 subject too: no raw 8-bit octets", async () => {
		const sent = await submit(live, { subject: "Grüße aus Köln" });
		expect(sent.status, sent.text).toBe(202);
		const request = await recorder.next();
		expect(request.head).toMatch(/^[\x20-\x7e\r\n]*$/);
		expect(decodeHeaderText(headerOf(request.head, "Subject")!)).toBe("Grüße aus Köln");
		expect(await settledStatus(sent.json.data.id)).toMatchObject({ status: "sent" });
	});

	it("a test key's simulated send with such a subject reaches delivered, transmitting nothing", async () => {
		const before = recorder.count();
		const sent = await submit(testKey, { subject: SUBJECT, mdn_mode: "sync" });
		expect(sent.status, sent.text).toBe(202);
		expect(await settledStatus(sent.json.data.id, testKey)).toMatchObject({ status: "delivered", subject: SUBJECT });
		expect(recorder.count()).toBe(before);
	});
});

describe("header values that could not be sent are refused at submit", () => {
	it("fetch: a custom header value beyond US-ASCII, a reserved name, a NUL subject — 422, every field named", async () => {
		const response = await submit(live, {
			subject: "Order\u00001",
			headers: { "X-Ref": "注文", "AS2-To": "EVE" },
		});
		expect(response.status).toBe(422);
		expect(Object.keys(response.json.errors).sort()).toEqual(["headers", "subject"]);
	});

	it("raw socket: a lone surrogate and a CR LF injection, as JSON escapes", async () => {
		const body = `{"partner_id":"${recorderPartner}","content_type":"application/edi-x12","payload":{"content":"x","filename":"a\\ud800"},"headers":{"X-Ref":"a\\r\\nAS2-To: EVE"}}`;
		const response = await rawRequest(
			server.port,
			`POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${live}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
			[body],
		);
		expect(response.status).toBe(422);
		const json = JSON.parse(response.raw.slice(response.raw.indexOf("\r\n\r\n") + 4));
		expect(Object.keys(json.errors).sort()).toEqual(["filename", "headers"]);
	});

	it("curl: a multipart headers[Name] field with a non-ASCII value", async () => {
		const { stdout } = await curl([
			"-w",
			"\n%{http_code}",
			"-H",
			`Authorization: Bearer ${live}`,
			"-F",
			`partner_id=${recorderPartner}`,
			"-F",
			"content_type=application/edi-x12",
			"-F",
			"headers[X-Ref]=注文",
			"-F",
			"file=ISA*00*~;filename=po.x12",
			`${server.base}/v1/messages`,
		]);
		const [body, status] = stdout.split("\n");
		expect(status).toBe("422");
		expect(Object.keys(JSON.parse(body!).errors)).toEqual(["headers"]);
		server.assertAlive();
	});
});

describe("an inbound Subject, however the partner wrote it", () => {
	let sequence = 0;

	/** A plain AS2 message from RAWSENDER (unsigned, unencrypted, sync unsigned MDN), its head as octets. */
	async function receive(subject: Buffer): Promise<string> {
		const messageId = `raw-${++sequence}-${process.pid}@blackbox.test`;
		const body = Buffer.from("ISA*00*~GS*PO~\r\n");
		const head = Buffer.concat([
			Buffer.from(
				`POST /as2/receive HTTP/1.1\r\nHost: 127.0.0.1\r\nAS2-Version: 1.0\r\nAS2-From: RAWSENDER\r\nAS2-To: ${tenantAs2Id}\r\nMessage-ID: <${messageId}>\r\nSubject: `,
			),
			subject,
			Buffer.from(
				`\r\nMIME-Version: 1.0\r\nContent-Type: application/edi-x12\r\nDisposition-Notification-To: RAWSENDER\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
			),
		]);
		// The head goes as bytes: rawRequest writes a string head as UTF-8.
		const response = await rawRequest(server.port, "", [head, body]);
		expect(response.status, response.raw).toBe(200);
		const found = await until(async () => {
			const list = await call(
				server.base,
				"GET",
				`/v1/messages?direction=inbound&search=${encodeURIComponent(messageId)}`,
				{
					token: live,
				},
			);
			return list.json?.data?.[0];
		}, `inbound ${messageId}`);
		return found.subject;
	}

	it.each([
		["raw UTF-8 octets (OpenAS2)", Buffer.from(SUBJECT, "utf8"), SUBJECT],
		["raw Latin-1 octets", Buffer.from("Grüße", "latin1"), "Grüße"],
		["Q-encoded ISO-8859-1", Buffer.from("=?ISO-8859-1?Q?Gr=FC=DFe?="), "Grüße"],
		[
			"B-encoded UTF-8, a character split across two words",
			Buffer.from("=?UTF-8?Q?M=C3?= =?UTF-8?Q?=BCller?="),
			"Müller",
		],
		["an encoded NUL, which no database column may hold", Buffer.from("=?UTF-8?Q?a=00b?="), "a\ufffdb"],
	])("stores the text of %s", async (_, wire, text) => {
		expect(await receive(wire)).toBe(text);
	});
});
