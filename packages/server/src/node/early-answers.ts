import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * How much of a request body the server still reads after it has answered the request (413,
 * 401, 404, …) before reading it all, and for how long.
 */
export interface LingerBounds {
	/** From the answer on; 0 closes the connection as soon as the answer is out. */
	totalMs: number;
	/** Longest silence between two pieces of the body. */
	idleMs: number;
	/** Most bytes read after the answer; a body whose Content-Length is larger is not read at all. */
	maxBytes: number;
}

/** nginx's lingering_timeout: a client that still sends its body pauses far less than this. */
const LINGER_IDLE_MS = 5_000;
/** Above the largest plan's payload (Enterprise: 2 GiB, 2.9 GiB as an AS2 body). */
const LINGER_MAX_BYTES = 4 * 1024 ** 3;

/** The bounds for AS2_LINGER_SECONDS. */
export function lingerBounds(seconds: number): LingerBounds {
	const totalMs = seconds * 1000;
	return { totalMs, idleMs: Math.min(LINGER_IDLE_MS, totalMs), maxBytes: LINGER_MAX_BYTES };
}

/** A server's lingering reads, by the function that ends each. */
const lingering = new WeakMap<Server, Set<() => void>>();

interface Lingering {
	server: Server;
	bounds: LingerBounds;
	stops: Set<() => void>;
}

/**
 * Serves `listener` on `server` for clients that write the whole request before they read the
 * answer (partners' AS2 clients, curl, fetch, Java's HttpClient): when the server answers
 * before it has read the body (413 over the plan's size, 401, 404 for an unknown AS2-To, …),
 *
 * - the answer says `Connection: close` (RFC 9112 §9.6): the rest of the body is not worth
 *   keeping the connection for;
 * - once it is out, the server keeps reading and discarding the body until its end, then
 *   closes the connection (FIN) — within `bounds`. Closing a socket with unread bytes makes
 *   the kernel answer with a TCP reset, and a client still writing gets EPIPE or ECONNRESET
 *   instead of the answer: what @hono/node-server's own drain (64 MB or 500 ms) did to larger
 *   bodies. nginx calls this a lingering close;
 * - a request with `Expect: 100-continue` (RFC 9110 §10.1.1; curl sends it for uploads over
 *   1 MiB) gets 100 Continue only when the handler starts reading its body: an answer its
 *   headers decide comes instead, and the client never sends the body. Node answers 100
 *   Continue at once unless a 'checkContinue' listener is installed.
 */
export function answerEarly(server: Server, listener: RequestListener, bounds: LingerBounds): void {
	const context: Lingering = { server, bounds, stops: new Set() };
	lingering.set(server, context.stops);
	const handle = (request: IncomingMessage, response: ServerResponse, expectsContinue: boolean) => {
		if (hasBody(request)) {
			if (expectsContinue) continueOnFirstRead(request, response);
			closeIfAnsweredEarly(request, response, context);
		} else if (expectsContinue) {
			response.writeContinue();
		}
		return listener(request, response);
	};
	server.on("request", (request: IncomingMessage, response: ServerResponse) => handle(request, response, false));
	server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => handle(request, response, true));
}

/** Ends every lingering read at once (on shutdown: they would hold `server.close()` up to the bound). */
export function closeLingeringConnections(server: Server): void {
	for (const stop of lingering.get(server) ?? []) stop();
}

function hasBody(request: IncomingMessage): boolean {
	const length = request.headers["content-length"];
	return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** 100 Continue on the handler's first read of the body, unless it has answered by then. */
function continueOnFirstRead(request: IncomingMessage, response: ServerResponse): void {
	const read = request._read;
	request._read = function (this: IncomingMessage, size: number) {
		request._read = read;
		if (!response.headersSent) response.writeContinue();
		read.call(this, size);
	};
}

/** When the answer starts before the body was read whole: `Connection: close`, then a lingering close. */
function closeIfAnsweredEarly(request: IncomingMessage, response: ServerResponse, context: Lingering): void {
	const writeHead = response.writeHead;
	response.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
		response.writeHead = writeHead;
		if (!request.complete && response.socket) {
			response.setHeader("connection", "close");
			lingerInsteadOfClosing(request, response.socket, context);
		}
		return writeHead.apply(this, args);
	} as ServerResponse["writeHead"];
}

/**
 * Node closes a `Connection: close` connection with `destroySoon()` once the answer is out (as
 * does @hono/node-server when its drain gives up): here that starts the lingering read
 * instead, once; later calls find it running.
 */
function lingerInsteadOfClosing(request: IncomingMessage, socket: Socket, context: Lingering): void {
	const destroySoon = socket.destroySoon;
	let started = false;
	socket.destroySoon = function (this: Socket) {
		if (started) return;
		started = true;
		const close = () => {
			socket.destroySoon = destroySoon;
			destroySoon.call(socket);
		};
		const declared = Number(request.headers["content-length"] ?? 0);
		const { server, bounds } = context;
		// A server shutting down waits for its connections: it does not start a lingering read.
		if (request.complete || !server.listening || bounds.totalMs === 0 || declared > bounds.maxBytes) return close();
		readToEnd(request, socket, bounds, close, context.stops);
	};
}

/**
 * Reads and discards the rest of the body within `bounds`, then `close`s. The FIN waits until
 * then: a client that reads while it writes may take the server's end for the end of its own
 * upload (a Node socket fails its next write with EPIPE).
 */
function readToEnd(
	request: IncomingMessage,
	socket: Socket,
	bounds: LingerBounds,
	close: () => void,
	stops: Set<() => void>,
): void {
	let read = 0;
	const stop = () => {
		if (!stops.delete(stop)) return;
		clearTimeout(total);
		clearTimeout(idle);
		request.off("data", onData);
		request.off("end", stop);
		socket.off("close", stop);
		close();
	};
	const onData = (chunk: Buffer) => {
		read += chunk.byteLength;
		if (read > bounds.maxBytes) stop();
		else idle.refresh();
	};
	const total = setTimeout(stop, bounds.totalMs).unref();
	const idle = setTimeout(stop, bounds.idleMs).unref();
	stops.add(stop);
	// Whoever read the body before the answer is done with it (a web stream left behind would
	// pause the request each time its queue is full): the rest goes nowhere, as in Node's _dump().
	request.removeAllListeners("data");
	request.removeAllListeners("readable");
	request.on("data", onData);
	request.once("end", stop);
	socket.once("close", stop);
	request.resume();
}
