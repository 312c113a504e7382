import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { answerEarly, closeLingeringConnections, type LingerBounds, lingerBounds } from "./early-answers.ts";

/** `/refuse` answers 413 without reading the body; anything else reads it whole, then answers 200. */
function handler(request: IncomingMessage, response: ServerResponse): void {
	const answer = (status: number, text: string) => {
		response.writeHead(status, { "content-type": "text/plain", "content-length": Buffer.byteLength(text) });
		response.end(text);
	};
	if (request.url === "/refuse") {
		answer(413, "too large");
		return;
	}
	if (request.url === "/partly") {
		void readPartlyThenRefuse(request, () => answer(413, "too large"));
		return;
	}
	let bytes = 0;
	request.on("data", (chunk: Buffer) => {
		bytes += chunk.byteLength;
	});
	request.on("end", () => answer(200, `read ${bytes}`));
}

/** As @hono/node-server reads a body: through a web stream, here up to 1 MiB, then left as it is. */
async function readPartlyThenRefuse(request: IncomingMessage, refuse: () => void): Promise<void> {
	const reader = (Readable.toWeb(request) as ReadableStream<Uint8Array>).getReader();
	let bytes = 0;
	while (bytes < MB) bytes += (await reader.read()).value?.byteLength ?? MB;
	refuse();
}

let server: Server | null = null;
/** When the server's side of the test's one connection closed. */
let serverClosed: Promise<number>;

async function serve(bounds: LingerBounds): Promise<{ server: Server; port: number }> {
	server = createServer();
	answerEarly(server, handler, bounds);
	serverClosed = new Promise((resolve) =>
		server!.once("connection", (socket) => socket.once("close", () => resolve(performance.now()))),
	);
	await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
	return { server, port: (server.address() as AddressInfo).port };
}

afterEach(async () => {
	server?.closeAllConnections();
	await new Promise((resolve) => server?.close(resolve));
	server = null;
});

interface Exchange {
	/** Everything the server sent. */
	received: string;
	/** Whether the server's FIN came (after its answer). */
	fin: boolean;
	/** Milliseconds from the first byte of the answer to the server closing its socket; null: still open when we gave up. */
	closedAfterMs: number | null;
	/** Body bytes written, and whether a write failed (a reset). */
	written: number;
	writeFailed: boolean;
}

/**
 * Writes `head`, then `pieceBytes` every `everyMs` (all of `bodyBytes` back to back with
 * everyMs 0; nothing with pieceBytes 0) until `bodyBytes` are out or the connection fails;
 * reads all along, and ends once the server has closed its socket (or after `giveUpMs`).
 */
function exchange(
	port: number,
	head: string,
	options: { bodyBytes: number; pieceBytes: number; everyMs: number; giveUpMs?: number },
): Promise<Exchange> {
	return new Promise((resolve) => {
		const socket = connect({ host: "127.0.0.1", port });
		let received = "";
		let fin = false;
		let answeredAt: number | null = null;
		let written = 0;
		let writeFailed = false;
		let writer: NodeJS.Timeout | undefined;
		const finish = (closedAt: number | null) => {
			clearTimeout(giveUp);
			clearInterval(writer);
			socket.destroy();
			const closedAfterMs = closedAt !== null && answeredAt !== null ? closedAt - answeredAt : null;
			resolve({ received, fin, closedAfterMs, written, writeFailed });
		};
		const giveUp = setTimeout(() => finish(null), options.giveUpMs ?? 10_000);
		// A moment after the server's close, for the reset or FIN it caused to arrive.
		void serverClosed.then((at) => setTimeout(() => finish(at), 100));
		const piece = Buffer.alloc(options.pieceBytes, 0x41);
		const writeNext = () => {
			if (written >= options.bodyBytes || socket.destroyed || options.pieceBytes === 0) return;
			const bytes = piece.subarray(0, Math.min(piece.byteLength, options.bodyBytes - written));
			written += bytes.byteLength;
			socket.write(bytes, (error) => {
				if (error) writeFailed = true;
				else if (options.everyMs === 0) writeNext();
			});
		};
		socket.on("data", (chunk: Buffer) => {
			received += chunk.toString("latin1");
			answeredAt ??= performance.now();
		});
		socket.on("end", () => {
			fin = true;
		});
		socket.on("error", () => {
			writeFailed = true;
		});
		socket.once("connect", () => {
			socket.write(head);
			if (options.everyMs === 0) writeNext();
			else writer = setInterval(writeNext, options.everyMs);
		});
	});
}

const post = (path: string, length: number | "chunked", extra = "") =>
	`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${
		length === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`
	}\r\n${extra}\r\n`;

const MB = 1024 * 1024;
const ROOMY: LingerBounds = { totalMs: 10_000, idleMs: 5_000, maxBytes: 64 * MB };

describe("an answer before the body was read", () => {
	it("says Connection: close, reads the rest of the body, then closes with a FIN", async () => {
		const { port } = await serve(ROOMY);
		const result = await exchange(port, post("/refuse", 8 * MB), { bodyBytes: 8 * MB, pieceBytes: MB, everyMs: 0 });
		expect(result.received).toMatch(/^HTTP\/1\.1 413 .*\r\nconnection: close\r\n[\s\S]*\r\n\r\ntoo large$/i);
		expect(result).toMatchObject({ fin: true, written: 8 * MB, writeFailed: false });
		expect(result.closedAfterMs).not.toBeNull();
	});

	it("reads the rest of a body the handler left half-read in a web stream", async () => {
		const { port } = await serve(ROOMY);
		const result = await exchange(port, post("/partly", 16 * MB), { bodyBytes: 16 * MB, pieceBytes: MB, everyMs: 0 });
		expect(result.received).toMatch(/^HTTP\/1\.1 413 .*\r\nconnection: close\r\n/is);
		expect(result).toMatchObject({ fin: true, written: 16 * MB, writeFailed: false });
	});

	it("keeps the connection when the body was read whole first", async () => {
		const { port } = await serve(ROOMY);
		const result = await exchange(port, post("/read", MB), {
			bodyBytes: MB,
			pieceBytes: MB,
			everyMs: 0,
			giveUpMs: 1000,
		});
		expect(result.received).toMatch(/^HTTP\/1\.1 200 /);
		expect(result.received).toMatch(/\r\nconnection: keep-alive\r\n/i);
		expect(result.closedAfterMs).toBeNull();
	});

	it("stops reading a body that keeps coming at the total bound", async () => {
		const { port } = await serve({ totalMs: 300, idleMs: 5_000, maxBytes: 64 * MB });
		const result = await exchange(port, post("/refuse", 60 * MB), {
			bodyBytes: 60 * MB,
			pieceBytes: 1024,
			everyMs: 20,
		});
		expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
		expect(result.closedAfterMs).toBeGreaterThanOrEqual(150);
		expect(result.closedAfterMs).toBeLessThan(4_000);
	});

	it("stops waiting for a body that stopped coming at the idle bound", async () => {
		const { port } = await serve({ totalMs: 10_000, idleMs: 300, maxBytes: 64 * MB });
		const result = await exchange(port, post("/refuse", 60 * MB), { bodyBytes: 0, pieceBytes: 0, everyMs: 0 });
		expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
		expect(result.fin).toBe(true);
		expect(result.closedAfterMs).toBeGreaterThanOrEqual(150);
		expect(result.closedAfterMs).toBeLessThan(4_000);
	});

	it("stops reading past the byte bound", async () => {
		const { port } = await serve({ totalMs: 10_000, idleMs: 5_000, maxBytes: MB });
		const result = await exchange(port, post("/refuse", "chunked"), {
			bodyBytes: 32 * MB,
			pieceBytes: 64 * 1024,
			everyMs: 0,
		});
		expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
		expect(result.closedAfterMs).not.toBeNull();
		expect(result.closedAfterMs).toBeLessThan(4_000);
	});

	it("does not read at all a body declared longer than the byte bound", async () => {
		const { port } = await serve({ totalMs: 10_000, idleMs: 5_000, maxBytes: MB });
		const result = await exchange(port, post("/refuse", 2 * MB), { bodyBytes: 0, pieceBytes: 0, everyMs: 0 });
		expect(result.received).toMatch(/^HTTP\/1\.1 413 .*\r\nconnection: close\r\n/is);
		expect(result.fin).toBe(true);
		expect(result.closedAfterMs).not.toBeNull();
		expect(result.closedAfterMs).toBeLessThan(2_000);
	});

	it("closes at once with a bound of 0 seconds", async () => {
		const { port } = await serve(lingerBounds(0));
		const result = await exchange(port, post("/refuse", 2 * MB), { bodyBytes: 0, pieceBytes: 0, everyMs: 0 });
		expect(result.fin).toBe(true);
		expect(result.closedAfterMs).not.toBeNull();
		expect(result.closedAfterMs).toBeLessThan(2_000);
	});

	it("ends every lingering read on closeLingeringConnections", async () => {
		const { server, port } = await serve(ROOMY);
		const pending = exchange(port, post("/refuse", 60 * MB), { bodyBytes: 0, pieceBytes: 0, everyMs: 0 });
		// Until the connection ends: before the answer there is nothing to end yet.
		const closer = setInterval(() => closeLingeringConnections(server), 50);
		const result = await pending;
		clearInterval(closer);
		expect(result.fin).toBe(true);
		expect(result.closedAfterMs).not.toBeNull();
		expect(result.closedAfterMs).toBeLessThan(2_000);
	});
});

describe("Expect: 100-continue", () => {
	it("an answer decided before the body is read comes instead of 100 Continue", async () => {
		const { port } = await serve({ ...ROOMY, idleMs: 300 });
		const result = await exchange(port, post("/refuse", 8 * MB, "Expect: 100-continue\r\n"), {
			bodyBytes: 0,
			pieceBytes: 0,
			everyMs: 0,
		});
		expect(result.received).toMatch(/^HTTP\/1\.1 413 /);
		expect(result.received).not.toMatch(/100 Continue/);
	});

	it("100 Continue comes when the handler reads the body", async () => {
		const { port } = await serve(ROOMY);
		const socket = connect({ host: "127.0.0.1", port });
		let received = "";
		const answered = new Promise<void>((resolve) => {
			socket.on("data", (chunk: Buffer) => {
				received += chunk.toString("latin1");
				// The client waits for 100 Continue before it sends its body, as curl does.
				if (received === "HTTP/1.1 100 Continue\r\n\r\n") socket.write("hello");
				if (/\r\n\r\nread 5$/.test(received)) resolve();
			});
		});
		socket.write(post("/read", 5, "Expect: 100-continue\r\n"));
		await answered;
		socket.destroy();
		expect(received).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
	});
});
