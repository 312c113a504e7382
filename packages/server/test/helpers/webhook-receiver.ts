import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
	path: string;
	headers: IncomingHttpHeaders;
	body: string;
	/** The body's bytes as received (for binary AS2 bodies). */
	raw: Buffer;
	// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON
	json: any;
}

/** How the receiver answers its nth request (0-based): a status, after an optional wait. */
export type Responder = (request: ReceivedRequest, index: number) => number | Promise<number>;

export interface Receiver {
	url: string;
	requests: ReceivedRequest[];
	/** Most requests that were being answered at the same time. */
	maxInFlight: number;
	inFlight: number;
	close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (port 0) that records every request. */
export async function startReceiver(
	respond: Responder = () => 200,
	options: { tls?: { cert: Buffer; key: Buffer } } = {},
): Promise<Receiver> {
	const server = options.tls ? createHttpsServer(options.tls) : createServer();
	const receiver: Receiver = {
		url: "",
		requests: [],
		maxInFlight: 0,
		inFlight: 0,
		async close() {
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
	server.on("request", (req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (chunk: Buffer) => chunks.push(chunk));
		req.on("end", async () => {
			const raw = Buffer.concat(chunks);
			const body = raw.toString("utf8");
			const request: ReceivedRequest = { path: req.url ?? "", headers: req.headers, body, raw, json: safeJson(body) };
			const index = receiver.requests.push(request) - 1;
			receiver.inFlight++;
			receiver.maxInFlight = Math.max(receiver.maxInFlight, receiver.inFlight);
			try {
				const status = await respond(request, index);
				res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : `failure ${status}`);
			} finally {
				receiver.inFlight--;
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	receiver.url = `${options.tls ? "https" : "http"}://127.0.0.1:${port}/hooks`;
	return receiver;
}

function safeJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return null;
	}
}

/** The receiver's side of the signature check (interface spec, Events: Signature). */
export function expectedSignature(secret: string, body: string): string {
	return createHmac("sha256", secret).update(body).digest("hex");
}

/** Polls `condition` every 10 ms, for `timeoutMs` at most (generously: 30 s by default). */
export async function waitFor(
	condition: () => boolean | Promise<boolean>,
	what: string,
	timeoutMs = 30_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (await condition()) return;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}
