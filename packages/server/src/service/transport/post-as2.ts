import { createHash } from "node:crypto";
import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { createSecureContext, type TLSSocket } from "node:tls";
import { As2Error } from "@as2kit/core";
import { readWholeBody } from "./read-whole-body.ts";
import { RefusedTarget, type TargetGuard } from "./target-guard.ts";
import { type TransportTrace, traceExchange } from "./transport-trace.ts";

export interface PostBody {
	/** Exact byte count (sent as Content-Length unless `chunked`). */
	size: number;
	open(): AsyncIterable<Uint8Array>;
	/**
	 * The whole body, when it is in memory: called once, as the body is written, in place of
	 * `open`, and written with the request's `end`. A small message's body went through three
	 * async generators (as2-core's, the capture's, the send job's) and `writeBody`'s loop to
	 * reach one write: 18 promises and 4.7 KB of heap per message more (issue #20, stop 34).
	 */
	whole?(): Uint8Array;
}

export interface PostOptions {
	url: string;
	/** The SSRF guard: the URL's host, and every address it resolves to, must pass it. */
	guard: TargetGuard;
	headers: Iterable<[string, string]>;
	body: PostBody;
	/** Transfer-Encoding: chunked instead of Content-Length (off by default: many AS2 servers need the length). */
	chunked?: boolean;
	/** Connecting, and any pause of the connection, longer than this fails (the partner's timeout). */
	idleTimeoutMs: number;
	/** The whole exchange, sync MDN included, longer than this fails (AS2_HTTP_TIMEOUT_SECONDS). */
	totalTimeoutMs: number;
	tls?: { caPem: string | null; pinnedSha256: string | null };
	auth?: { username: string; password: string } | null;
	/** A larger answer fails: a sync MDN is a few kilobytes. */
	maxResponseBytes?: number;
	/** Stops the exchange when aborted (the send job's lease was lost to another worker). */
	signal?: AbortSignal;
	/** Filled in as the exchange goes (the attempt's record), kept when it fails too. */
	trace?: TransportTrace;
}

export interface PostResult {
	status: number;
	headers: Array<[string, string]>;
	body: Uint8Array;
	timeMs: number;
}

/**
 * A URL the target guard refuses: not transient (the deployment's rule, not the network's
 * state), so the send fails at once with the reason.
 */
export function refusedTarget(error: RefusedTarget): As2Error {
	return new As2Error("INVALID_ENDPOINT_URL", `refused: ${error.message}`, { details: { transient: false } });
}

/** Connection failures, timeouts and TLS errors: transient, the send is retried. */
export function unreachable(message: string, cause?: unknown): As2Error {
	return new As2Error("PARTNER_UNREACHABLE", message, { details: { transient: true }, cause });
}

/** By TLS policy without the CA (`protocol|allowsPrivate|pin`), then by the CA's PEM. */
const agents = new Map<string, Map<string, HttpAgent | HttpsAgent>>();

/**
 * An idle kept-alive connection is closed by us after this long, or a second before the
 * partner's announced `Keep-Alive: timeout=N` if that is sooner (Node applies the hint only when
 * the agent has a timeout of its own). Without it, a connection idle as long as the partner's
 * keep-alive timeout (5 s on Node and Apache) could be reused just as the partner closes it: the
 * POST then fails with ECONNRESET, and the message waits for its retry.
 */
const IDLE_CONNECTION_MS = 4000;

/**
 * One keep-alive agent per TLS policy and target rule, so connections to a partner are
 * reused across messages (a TLS handshake costs more than a small message) without mixing
 * trust settings, and a socket opened where private targets are allowed is never reused
 * where they are not.
 */
function agentFor(url: URL, tls: PostOptions["tls"], guard: TargetGuard): HttpAgent | HttpsAgent {
	const policy = `${url.protocol}|${guard.allowsPrivate}|${tls?.pinnedSha256 ?? ""}`;
	const caPem = tls?.caPem ?? "";
	let byCa = agents.get(policy);
	if (!byCa) {
		byCa = new Map();
		agents.set(policy, byCa);
	}
	let agent = byCa.get(caPem);
	if (!agent) {
		agent =
			url.protocol === "https:"
				? new HttpsAgent({
						keepAlive: true,
						timeout: IDLE_CONNECTION_MS,
						maxSockets: 64,
						// The partner's CA as a context made once, not as `ca`: Node's https agent names
						// its pool of every request by its TLS options, the whole PEM included, and
						// looks that long name up several times per request (issue #20). The context
						// replaces the system roots by the CA and holds the minimum version.
						...(caPem
							? { secureContext: createSecureContext({ ca: caPem, minVersion: "TLSv1.2" }) }
							: { minVersion: "TLSv1.2" as const }),
						// A pinned certificate is trusted for itself, even self-signed; pinning is then checked on connect.
						rejectUnauthorized: !(tls?.pinnedSha256 && !caPem),
					})
				: new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS, maxSockets: 64 });
		byCa.set(caPem, agent);
	}
	return agent;
}

/**
 * What a stopped exchange fails with, as Node's own `signal` option made it: the exchange is
 * stopped by destroying its request directly, because a `signal` on each request cost some
 * 20 us (an AbortSignal and Node's end-of-stream watch of the request, issue #20).
 */
function abortError(reason: unknown): Error {
	return Object.assign(new Error("The operation was aborted", { cause: reason }), {
		name: "AbortError",
		code: "ABORT_ERR",
	});
}

/**
 * POSTs an AS2 message (or an async MDN) to a partner, streaming the body with backpressure,
 * TLS verified against the system roots or the partner's CA, a pinned leaf enforced, and
 * every wait bounded; connecting only to addresses the target guard passed. Redirects are
 * not followed (a 3xx is the partner's answer). Answers the status, headers and (capped) body.
 */
export async function postAs2(options: PostOptions): Promise<PostResult> {
	const url = new URL(options.url);
	try {
		// An IP literal never reaches `lookup`: checked here; a name is checked as it resolves.
		options.guard.checkHost(url);
	} catch (error) {
		throw error instanceof RefusedTarget ? refusedTarget(error) : error;
	}
	const headers: Record<string, string | string[]> = {};
	for (const [name, value] of options.headers) headers[name] = value;
	if (options.auth) {
		headers.Authorization = `Basic ${Buffer.from(`${options.auth.username}:${options.auth.password}`).toString("base64")}`;
	}
	if (options.chunked) headers["Transfer-Encoding"] = "chunked";
	else headers["Content-Length"] = String(options.body.size);
	const started = performance.now();
	let current: ClientRequest | null = null;
	let stopped: Error | null = null;
	const stop = (reason?: unknown) => {
		stopped ??= abortError(reason);
		current?.destroy(stopped);
	};
	let timedOut = false;
	const total = setTimeout(() => {
		timedOut = true;
		stop();
	}, options.totalTimeoutMs);
	// The caller's signal (the send job's lease) stops the exchange too: `AbortSignal.any`
	// cost 20 us per exchange on Node 20 (its weak references and their finalization), a
	// listener 5 us (issue #20).
	const stopOnCallerAbort = () => stop(options.signal?.reason);
	if (options.signal?.aborted) stopOnCallerAbort();
	else options.signal?.addEventListener("abort", stopOnCallerAbort, { once: true });
	const send = url.protocol === "https:" ? httpsRequest : httpRequest;
	try {
		// Stopped before it starts (a lease already lost): no request, so no lookup nor connection
		// the agent would start for nothing.
		if (stopped) throw toUnreachable(stopped, url, timedOut, options.totalTimeoutMs);
		let written: Promise<void> = Promise.resolve();
		const answered = new Promise<PostResult>((resolve, reject) => {
			const request = send(url, {
				method: "POST",
				headers,
				agent: agentFor(url, options.tls, options.guard),
				lookup: options.guard.lookup,
			});
			current = request;
			request.setTimeout(options.idleTimeoutMs, () =>
				request.destroy(unreachable(`no progress for ${options.idleTimeoutMs} ms talking to ${url.host}`)),
			);
			const pin = options.tls?.pinnedSha256;
			if (pin) {
				request.once("socket", (socket) => {
					// A kept-alive socket passed this check when it connected, and never connects again:
					// a listener added to it per request stayed there (a closure per message it carried).
					if (!socket.connecting) return;
					socket.once("secureConnect", () => {
						const raw = (socket as TLSSocket).getPeerCertificate().raw;
						if (!raw || createHash("sha256").update(raw).digest("hex") !== pin) {
							socket.destroy(unreachable(`${url.host} presented a certificate other than the pinned one`));
						}
					});
				});
			}
			if (options.trace) traceExchange(request, options.trace, started);
			request.once("error", (error) => reject(toUnreachable(error, url, timedOut, options.totalTimeoutMs)));
			request.once("response", (response) => {
				readCapped(response, options.maxResponseBytes ?? 10 * 1024 * 1024).then(
					(body) =>
						resolve({
							status: response.statusCode ?? 0,
							headers: pairs(response.rawHeaders),
							body,
							timeMs: Math.round(performance.now() - started),
						}),
					reject,
				);
			});
			written = (options.body.whole ? endWhole(request, options.body.whole) : writeBody(request, options.body)).catch(
				(error: unknown) => {
					request.destroy(error as Error);
					throw toUnreachable(error, url, timedOut, options.totalTimeoutMs);
				},
			);
		});
		// A partner may answer before the last byte is written (it knows the Content-Length):
		// the exchange is over only when the body's producer has finished too, so whatever it
		// does after its last chunk (the sender records the MIC) has happened by then.
		const [result] = await Promise.all([answered, written]);
		return result;
	} finally {
		clearTimeout(total);
		options.signal?.removeEventListener("abort", stopOnCallerAbort);
	}
}

/** The body in one `end` (Content-Length or one chunk of a chunked body, as `writeBody` writes it). */
async function endWhole(request: ClientRequest, whole: () => Uint8Array): Promise<void> {
	if (!request.destroyed) request.end(whole());
}

async function writeBody(request: ClientRequest, body: PostBody): Promise<void> {
	for await (const chunk of body.open()) {
		if (request.destroyed) return;
		if (!request.write(chunk)) await drained(request);
	}
	request.end();
}

/**
 * Waits for the request's buffer to drain (or the request to end), then removes all three
 * listeners: a large body waits thousands of times, and listeners left behind on each wait
 * piled up on the request (MaxListenersExceededWarning, and every emit walking them all).
 */
function drained(request: ClientRequest): Promise<void> {
	return new Promise<void>((resolve, reject) => {
		const settle = (error?: Error) => {
			request.off("drain", onDrain);
			request.off("close", onDrain);
			request.off("error", settle);
			if (error) reject(error);
			else resolve();
		};
		const onDrain = () => settle();
		request.on("drain", onDrain);
		request.on("close", onDrain);
		request.on("error", settle);
	});
}

/** The partner's answer whole, at most `max` bytes: past them the connection is dropped. */
async function readCapped(response: IncomingMessage, max: number): Promise<Uint8Array> {
	let bytes: Uint8Array | null;
	try {
		bytes = await readWholeBody(response, max);
	} catch (error) {
		throw unreachable(`reading the answer failed: ${(error as Error).message}`, error);
	}
	if (bytes === null) {
		response.destroy();
		throw new As2Error("INVALID_MDN", `the partner's answer exceeds ${max} bytes`);
	}
	return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function pairs(raw: string[]): Array<[string, string]> {
	const out: Array<[string, string]> = [];
	for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
	return out;
}

function toUnreachable(error: unknown, url: URL, timedOut: boolean, totalMs: number): unknown {
	if (error instanceof RefusedTarget) return refusedTarget(error);
	if (timedOut) return unreachable(`no complete answer from ${url.host} within ${totalMs} ms`, error);
	if ((error as { code?: string }).code === "PARTNER_UNREACHABLE") return error;
	return unreachable(`cannot deliver to ${url.host}: ${(error as Error).message}`, error);
}
