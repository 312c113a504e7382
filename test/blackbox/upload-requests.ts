/**
 * The upload paths of the server as raw HTTP/1.1 requests, for tests that cut them short, stall
 * them or send them whole (client-faults.test.ts, uploads.test.ts): a tenant with a partner to
 * send to and receive from, the bytes of each request, a raw socket writer that ends the way a
 * faulty client does, and the barrier that says the server is done with a request.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join, relative } from "node:path";
import { generateSelfSigned } from "@as2kit/core";
import { liveBlobsUnder } from "../../packages/server/test/helpers/live-blobs.ts";
import type { BuiltServer } from "./built-server.ts";
import { call, register } from "./clients.ts";
import { writeDrained } from "./socket-write.ts";

export interface UploadWorld {
	token: string;
	partnerId: string;
	partnerAs2Id: string;
	tenantAs2Id: string;
	certificatePem: string;
}

/** A user, its tenant's AS2 id, and a partner without signing or encryption (plain AS2 is accepted). */
export async function setUpUploadWorld(server: BuiltServer): Promise<UploadWorld> {
	const user = await register(server.base);
	const tenant = await call(server.base, "GET", `/v1/tenants/${user.tenantId}`, { token: user.token });
	const partnerAs2Id = `PARTNER-${process.pid}`;
	const partner = await call(server.base, "POST", "/v1/partners", {
		token: user.token,
		body: {
			name: "Upload partner",
			as2_id: partnerAs2Id,
			url: "https://partner.example/as2",
			sign: false,
			encrypt: false,
			mdn_mode: "none",
		},
	});
	if (partner.status !== 201) throw new Error(`partner creation failed: ${partner.status} ${partner.text}`);
	const { certificatePem } = await generateSelfSigned({ commonName: "upload-partner.example" });
	return {
		token: user.token,
		partnerId: partner.json.data.id,
		partnerAs2Id,
		tenantAs2Id: tenant.json.data.as2_id,
		certificatePem,
	};
}

export const BOUNDARY = "----as2kit-blackbox-boundary";
const JSON_TYPE = { "content-type": "application/json" };
const FORM_TYPE = { "content-type": `multipart/form-data; boundary=${BOUNDARY}` };

/** A multipart/form-data body; a part with `filename` is a file part. */
export function multipartBody(
	parts: { name: string; value: string | Uint8Array; filename?: string; type?: string }[],
): Uint8Array {
	const pieces: Uint8Array[] = [];
	for (const part of parts) {
		const disposition = `form-data; name="${part.name}"${part.filename === undefined ? "" : `; filename="${part.filename}"`}`;
		const type = part.type ? `\r\nContent-Type: ${part.type}` : "";
		pieces.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`, "utf8"));
		pieces.push(typeof part.value === "string" ? Buffer.from(part.value, "utf8") : part.value);
		pieces.push(Buffer.from("\r\n"));
	}
	pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
	return Buffer.concat(pieces);
}

export interface UploadRequest {
	/** What it is, for test names. */
	name: string;
	method: "POST";
	path: string;
	/** The headers of a valid request, without Content-Length and Host. */
	headers: Record<string, string>;
	/** The headers that make the server refuse it at once, before reading the body (4xx). */
	refusedHeaders: Record<string, string>;
	body: Uint8Array;
}

/** A plain EDI-like payload of `size` bytes. */
export function payload(size: number): Uint8Array {
	return Buffer.from(
		randomBytes(Math.ceil((size * 3) / 4))
			.toString("base64")
			.slice(0, size),
	);
}

/** An EPCIS 2.0 document of about `size` bytes: one ObjectEvent repeated. */
function epcisDocument(size: number): string {
	const event = `<ObjectEvent><eventTime>2024-01-10T10:00:00.000Z</eventTime><eventTimeZoneOffset>+00:00</eventTimeZoneOffset><epcList><epc>urn:epc:id:sgtin:0614141.107346.2017</epc></epcList><action>OBSERVE</action><bizStep>shipping</bizStep></ObjectEvent>\n`;
	const head = `<?xml version="1.0" encoding="UTF-8"?>\n<epcis:EPCISDocument xmlns:epcis="urn:epcglobal:epcis:xsd:2" schemaVersion="2.0" creationDate="2024-01-16T00:00:00Z"><EPCISBody><EventList>\n`;
	const tail = "</EventList></EPCISBody></epcis:EPCISDocument>\n";
	return head + event.repeat(Math.max(1, Math.floor(size / event.length))) + tail;
}

/** Every upload path of the contract, built for a world. */
export interface Upload {
	name: string;
	build(world: UploadWorld): UploadRequest;
}

const bearer = (world: UploadWorld) => ({ authorization: `Bearer ${world.token}` });
const REFUSED_BEARER = { authorization: "Bearer not-a-key" };

const as2Upload = (path: string): Upload => ({
	name: `POST ${path} (AS2 message)`,
	build: (world) => ({
		name: `POST ${path} (AS2 message)`,
		method: "POST",
		path,
		headers: {
			"as2-version": "1.2",
			"as2-from": world.partnerAs2Id,
			"as2-to": world.tenantAs2Id,
			"message-id": `<fault-${randomBytes(6).toString("hex")}@partner.example>`,
			"content-type": "application/edi-x12",
		},
		refusedHeaders: {
			"as2-version": "1.2",
			"as2-from": world.partnerAs2Id,
			"as2-to": "NO-SUCH-TENANT",
			"message-id": "<refused@partner.example>",
			"content-type": "application/edi-x12",
		},
		body: payload(1_500_000),
	}),
});

const apiUpload = (
	name: string,
	path: (world: UploadWorld) => string,
	type: Record<string, string>,
	body: (world: UploadWorld) => Uint8Array,
): Upload => ({
	name,
	build: (world) => ({
		name,
		method: "POST",
		path: path(world),
		headers: { ...bearer(world), ...type },
		refusedHeaders: { ...REFUSED_BEARER, ...type },
		body: body(world),
	}),
});

/** A message upload as curl -F sends it, its file `size` bytes. */
export function messageForm(world: UploadWorld, size: number, filename = "order.x12"): Uint8Array {
	return multipartBody([
		{ name: "partner_id", value: world.partnerId },
		{ name: "content_type", value: "application/edi-x12" },
		{ name: "file", value: payload(size), filename, type: "application/octet-stream" },
	]);
}

/**
 * Every upload path of the contract, each with a body large enough to take the streaming path
 * where there is one (over the blob store's 256 KiB in-memory threshold, and over /as2/receive's
 * 1 MiB one).
 */
export const UPLOADS: Upload[] = [
	apiUpload(
		"POST /v1/messages (JSON)",
		() => "/v1/messages",
		JSON_TYPE,
		(world) =>
			Buffer.from(
				JSON.stringify({
					partner_id: world.partnerId,
					content_type: "application/edi-x12",
					payload: { content: Buffer.from(payload(600_000)).toString("utf8"), filename: "order.x12" },
				}),
			),
	),
	apiUpload(
		"POST /v1/messages (multipart)",
		() => "/v1/messages",
		FORM_TYPE,
		(world) => messageForm(world, 1_500_000),
	),
	as2Upload("/as2/receive"),
	as2Upload("/as2/mdn"),
	apiUpload(
		"POST /v1/partners/{id}/certificates (multipart)",
		(world) => `/v1/partners/${world.partnerId}/certificates`,
		FORM_TYPE,
		(world) =>
			multipartBody([
				{ name: "name", value: "uploaded" },
				{ name: "usage", value: "both" },
				{ name: "certificate", value: world.certificatePem, filename: "partner.pem", type: "application/x-pem-file" },
			]),
	),
	apiUpload(
		"POST /v1/certificates (JSON)",
		() => "/v1/certificates",
		JSON_TYPE,
		(world) =>
			Buffer.from(
				JSON.stringify({
					name: "uploaded",
					type: "partner",
					usage: "both",
					partner_id: world.partnerId,
					certificate: world.certificatePem,
				}),
			),
	),
	apiUpload(
		"POST /v1/epcis/validate (multipart)",
		() => "/v1/epcis/validate",
		FORM_TYPE,
		() =>
			multipartBody([
				{ name: "validation_rules", value: "business_rules" },
				{ name: "document", value: epcisDocument(1_200_000), filename: "events.xml", type: "application/xml" },
			]),
	),
	apiUpload(
		"POST /v1/epcis/validate (JSON)",
		() => "/v1/epcis/validate",
		JSON_TYPE,
		() => Buffer.from(JSON.stringify({ document: epcisDocument(600_000) })),
	),
];

/** The request line and headers, with Content-Length (or chunked) and an X-Request-Id to find its log line. */
export function requestHead(
	request: Pick<UploadRequest, "method" | "path">,
	headers: Record<string, string>,
	length: number | "chunked",
	requestId: string,
): string {
	const lines = [`${request.method} ${request.path} HTTP/1.1`, "Host: 127.0.0.1", `X-Request-Id: ${requestId}`];
	for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
	lines.push(length === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`);
	return `${lines.join("\r\n")}\r\n\r\n`;
}

export type Ending =
	/** FIN: the client closes its side cleanly before the body is complete. */
	| "close"
	/** RST: the connection is reset. */
	| "reset";

export interface SendOptions {
	/** A pause before each piece (a slow client, or packets that arrive one by one). */
	pauseMs?: number;
	/** How long to stay connected, silent, after the last piece before ending (a stalled client). */
	holdMs?: number;
	/** End as soon as the server has answered (a client that hangs up after an early 4xx). */
	endWhenAnswered?: boolean;
}

/**
 * Opens a connection, writes `head` and then each piece (after `pauseMs`, waiting for the
 * socket to drain), holds it for `holdMs`, then ends it as told — or as soon as an answer came,
 * with `endWhenAnswered`. Resolves with the answer's status, if one came before the end.
 */
export function sendAndEnd(
	port: number,
	head: string,
	pieces: Iterable<Uint8Array>,
	ending: Ending,
	options: SendOptions = {},
): Promise<{ status: number | null }> {
	return new Promise((resolve, reject) => {
		const socket = connect({ host: "127.0.0.1", port });
		let received = "";
		let answered: () => void = () => {};
		const answer = new Promise<void>((r) => {
			answered = r;
		});
		const status = () => {
			const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
			return match ? Number(match[1]) : null;
		};
		const end = () => (ending === "reset" ? socket.resetAndDestroy() : socket.destroySoon());
		socket.on("data", (chunk: Buffer) => {
			received += chunk.toString("latin1");
			if (status() !== null) answered();
		});
		socket.on("error", () => {});
		socket.once("close", () => {
			answered();
			resolve({ status: status() });
		});
		socket.once("connect", async () => {
			try {
				await writeDrained(socket, Buffer.from(head, "latin1"));
				for (const piece of pieces) {
					if (socket.destroyed || (options.endWhenAnswered && status() !== null)) break;
					if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
					await writeDrained(socket, piece, options.endWhenAnswered ? answer : undefined);
				}
				if (options.endWhenAnswered) await answer;
				if (options.holdMs) await new Promise((r) => setTimeout(r, options.holdMs));
				if (!socket.destroyed) end();
			} catch (error) {
				socket.destroy();
				reject(error);
			}
		});
	});
}

/** `bytes` in pieces of the given sizes (the last one takes the rest). */
export function piecesOf(bytes: Uint8Array, sizes: number[]): Uint8Array[] {
	const pieces: Uint8Array[] = [];
	let offset = 0;
	for (const size of sizes) {
		if (offset >= bytes.byteLength) break;
		pieces.push(bytes.subarray(offset, offset + size));
		offset += size;
	}
	if (offset < bytes.byteLength) pieces.push(bytes.subarray(offset));
	return pieces;
}

/**
 * Waits (bounded) for the server's access-log line of the request with `requestId`: it is
 * written once the handler has finished, cleanup included. Returns the logged status.
 */
export async function requestFinished(server: BuiltServer, requestId: string, timeoutMs = 30_000): Promise<number> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		server.assertAlive();
		const line = server
			.output()
			.split("\n")
			.find((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"msg":"request"'));
		if (line) return (JSON.parse(line) as { status: number }).status;
		if (Date.now() > deadline) {
			throw new Error(`no access-log line for request ${requestId} within ${timeoutMs} ms`);
		}
		await new Promise((r) => setTimeout(r, 25));
	}
}

/**
 * Every file under the server's directory (its TMPDIR, BLOB_DIR and, on SQLite, its database),
 * relative to it, except the database's own files, which change with every request. A segment
 * file of the blob store (stop 33) is listed as its live blobs and its ledger not at all
 * (live-blobs.ts): a blob deleted again leaves nothing listed.
 */
export function filesOf(server: BuiltServer): string[] {
	const paths = (readdirSync(server.dir, { recursive: true, encoding: "utf8" }) as string[])
		.map((path) => join(server.dir, path))
		.filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile())
		.map((path) => relative(server.dir, path))
		.filter((path) => !/^as2\.sqlite(-wal|-shm|-journal)?$/.test(path));
	return liveBlobsUnder(server.dir, paths);
}

/** What a client that sends its whole request before reading saw. */
export interface SentWhole {
	/** The error of a write, by code (EPIPE, ECONNRESET), or null when every byte went out. */
	writeError: string | null;
	/** The answer's status, header block (latin1) and body (UTF-8), as far as they came. */
	status: number | null;
	head: string;
	body: string;
	/** How the connection ended: the server's FIN, a reset (or another error), or our timeout. */
	ended: "fin" | "reset" | "timeout";
	/** The error that ended it, by code, when it was not a FIN. */
	readError: string | null;
}

/**
 * A client that writes the request head and every piece of its body at full speed, waiting
 * only for the socket to drain, and reads nothing until it has written everything — as
 * partners' AS2 clients, curl and Java's HttpClient mostly do. Then it reads the answer until
 * the server ends the connection (or `timeoutMs` passes).
 */
export function sendWholeThenRead(
	port: number,
	head: string,
	pieces: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
	timeoutMs = 60_000,
): Promise<SentWhole> {
	return new Promise((resolve) => {
		const socket = connect({ host: "127.0.0.1", port });
		socket.pause();
		const received: Buffer[] = [];
		let writeError: string | null = null;
		let readError: string | null = null;
		let writing = true;
		let settled = false;
		const finish = (ended: SentWhole["ended"]) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			socket.destroy();
			const raw = Buffer.concat(received);
			const split = raw.indexOf("\r\n\r\n");
			const headBytes = split < 0 ? raw : raw.subarray(0, split);
			const status = /^HTTP\/1\.1 (\d{3})/.exec(headBytes.toString("latin1"));
			resolve({
				writeError,
				status: status ? Number(status[1]) : null,
				head: headBytes.toString("latin1"),
				body: split < 0 ? "" : raw.subarray(split + 4).toString("utf8"),
				ended,
				readError,
			});
		};
		const timer = setTimeout(() => finish("timeout"), timeoutMs);
		socket.on("error", (error: NodeJS.ErrnoException) => {
			if (writing) writeError = error.code ?? error.message;
			else readError = error.code ?? error.message;
			finish("reset");
		});
		socket.on("data", (chunk: Buffer) => received.push(chunk));
		socket.on("end", () => finish("fin"));
		socket.once("connect", async () => {
			await writeDrained(socket, Buffer.from(head, "latin1"));
			for await (const piece of pieces) {
				if (socket.destroyed) return;
				await writeDrained(socket, piece);
			}
			writing = false;
			socket.resume();
		});
	});
}

/**
 * A SentWhole as tests compare it: the status, the Connection header, whether the answer's
 * body came whole (its Content-Length), and how the connection ended.
 */
export function outcome(sent: SentWhole) {
	const length = /\r\ncontent-length: *(\d+)/i.exec(sent.head)?.[1];
	return {
		status: sent.status,
		connection: /\r\nconnection: *([^\r]*)/i.exec(sent.head)?.[1]?.toLowerCase() ?? null,
		bodyWhole: length !== undefined && Buffer.byteLength(sent.body) === Number(length),
		writeError: sent.writeError,
		ended: sent.ended,
		readError: sent.readError,
	};
}

/** The outcome of an early answer done right: read whole, `Connection: close`, then a FIN, no error. */
export const ANSWERED_THEN_FIN = {
	connection: "close",
	bodyWhole: true,
	writeError: null,
	ended: "fin",
	readError: null,
} as const;

/** `size` bytes of body in pieces of 1 MiB (one buffer, sent again and again). */
export function* bulk(size: number): Generator<Uint8Array> {
	const piece = Buffer.alloc(1024 * 1024, 0x41);
	for (let sent = 0; sent < size; sent += piece.byteLength) {
		yield sent + piece.byteLength <= size ? piece : piece.subarray(0, size - sent);
	}
}

/** `size` bytes of chunked transfer coding (256 KiB chunks), with its last chunk. */
export function* chunkedBody(size: number): Generator<Uint8Array> {
	const chunk = Buffer.alloc(256 * 1024, 0x41);
	for (let sent = 0; sent < size; sent += chunk.byteLength) {
		yield Buffer.from(`${chunk.byteLength.toString(16)}\r\n`);
		yield chunk;
		yield Buffer.from("\r\n");
	}
	yield Buffer.from("0\r\n\r\n");
}
