import { createHash } from "node:crypto";
import type { ClientRequest, IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { AttemptPhases } from "@as2kit/core/store";

/** What one HTTP exchange looked like on the wire, as far as it got (issue #18, attempts). */
export interface TransportTrace {
	phases: AttemptPhases;
	/** The request line and header fields as written, Authorization redacted. */
	requestHead?: string;
	/** The status line and header fields as received. */
	responseHead?: string;
	bytesSent?: number;
	bytesReceived?: number;
	tlsVersion?: string;
	peerCertificateSha256?: string;
}

export const newTrace = (): TransportTrace => ({ phases: {} });

/**
 * Times the phases of `request` from `started` (performance.now()): connecting (DNS included;
 * absent on a reused keep-alive connection), the TLS handshake, sending, and waiting for the
 * whole answer; counts the socket's bytes of this exchange and notes the TLS session.
 */
export function traceExchange(request: ClientRequest, trace: TransportTrace, started: number): void {
	const since = (from: number) => Math.round(performance.now() - from);
	let sendFrom = started;
	let finishedAt = 0;
	let baseline = { written: 0, read: 0 };
	let socket: Socket | null = null;
	const count = () => {
		if (!socket) return;
		trace.bytesSent = socket.bytesWritten - baseline.written;
		trace.bytesReceived = socket.bytesRead - baseline.read;
	};
	request.once("socket", (s) => {
		socket = s;
		baseline = { written: s.bytesWritten, read: s.bytesRead };
		// A kept-alive socket is connected already: listeners on it would pile up, one per request.
		if (!s.connecting) return;
		s.once("connect", () => {
			trace.phases.connectMs = since(started);
			sendFrom = performance.now();
		});
		if ("encrypted" in s) {
			s.once("secureConnect", () => {
				trace.phases.tlsMs = since(sendFrom);
				sendFrom = performance.now();
			});
		}
	});
	request.once("finish", () => {
		trace.phases.sendMs = since(sendFrom);
		finishedAt = performance.now();
		trace.requestHead = requestHead(request);
	});
	request.once("response", (response: IncomingMessage) => {
		trace.responseHead = responseHead(response);
		const tls = request.socket as TLSSocket | null;
		if (tls?.encrypted) {
			trace.tlsVersion = tls.getProtocol() ?? undefined;
			trace.peerCertificateSha256 = peerCertificateSha256(tls);
		}
		response.once("end", () => {
			if (finishedAt) trace.phases.waitMs = since(finishedAt);
			count();
		});
	});
	request.once("close", () => {
		trace.requestHead ??= requestHead(request);
		count();
	});
}

/**
 * The peer's certificate is the connection's, not the exchange's: a kept-alive connection
 * carries hundreds of messages, and `getPeerCertificate()` builds the whole certificate as an
 * object each time (about 0.1 ms of the sender's ~5 ms per message, issue #20). So its digest is
 * taken once per connection (the pin is checked once per connection as well, in post-as2.ts).
 */
const peerDigests = new WeakMap<TLSSocket, string>();

function peerCertificateSha256(socket: TLSSocket): string | undefined {
	const known = peerDigests.get(socket);
	if (known) return known;
	const raw = socket.getPeerCertificate()?.raw;
	if (!raw) return undefined;
	const digest = createHash("sha256").update(raw).digest("hex");
	peerDigests.set(socket, digest);
	return digest;
}

/**
 * Node keeps the head it wrote in `_header` (long-standing, undocumented); the rebuilt one
 * (request line and the headers set) is the fallback. Basic credentials never reach a capture.
 */
function requestHead(request: ClientRequest): string {
	const written = (request as unknown as { _header?: unknown })._header;
	const head =
		typeof written === "string" && written
			? written
			: `${request.method} ${request.path} HTTP/1.1\r\n${request
					.getRawHeaderNames()
					.map((name) => `${name}: ${String(request.getHeader(name))}\r\n`)
					.join("")}\r\n`;
	return head.replace(/^(authorization:[ \t]*\S+)[^\r\n]*/im, "$1 [redacted]");
}

function responseHead(response: IncomingMessage): string {
	const lines = [`HTTP/${response.httpVersion} ${response.statusCode ?? 0} ${response.statusMessage ?? ""}`.trimEnd()];
	for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
		lines.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
	}
	return `${lines.join("\r\n")}\r\n\r\n`;
}
