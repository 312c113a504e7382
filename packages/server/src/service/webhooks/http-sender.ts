import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { performance } from "node:perf_hooks";
import { createTargetGuard, type Resolver } from "../transport/target-guard.ts";

/** What one HTTP attempt came to. A 2xx status is a success; anything else is a failure. */
export interface SendResult {
	/** Null when no response arrived: timeout, refused target, connection or TLS failure. */
	responseStatus: number | null;
	/** Until the response status arrived, or until the failure. */
	responseTimeMs: number;
	/** The start of the response body (at most RESPONSE_BODY_KEPT characters). */
	responseBody: string | null;
	/** Why the attempt failed; null for a 2xx. */
	error: string | null;
}

export interface WebhookSender {
	send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
	/** Closes idle keep-alive connections. */
	close(): void;
}

export interface WebhookSenderOptions {
	/** The whole attempt, connecting included (interface spec: 30 s). */
	timeoutMs: number;
	/** AS2_ALLOW_PRIVATE_TARGETS=1: loopback, private and link-local targets are allowed. */
	allowPrivateTargets: boolean;
	/** Name resolution; `dns.lookup` (all addresses) by default. Tests substitute one. */
	resolve?: Resolver;
}

/** Enough of a response body to read an error page; the rest is not read. */
const RESPONSE_BODY_READ = 64 * 1024;
export const RESPONSE_BODY_KEPT = 1024;

/**
 * Posts webhook deliveries with node:http(s): no redirects followed (a 3xx is a failure),
 * TLS certificates verified (Node's default CA store), a deadline over the whole attempt,
 * and at most RESPONSE_BODY_READ bytes of a response read. Against DNS rebinding, unless
 * private targets are allowed, the connection goes through our own `lookup`: it resolves
 * the name, refuses it when any address is loopback, private or link-local, and hands the
 * checked addresses to the socket, so there is no second resolution an attacker's DNS could
 * answer differently. Keep-alive sockets are reused only for connections made that way.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
	const guard = createTargetGuard(options);
	// Idle sockets close after 4 s, before Node's default server keep-alive of 5 s closes them
	// under us (which would turn a reused socket into a spurious ECONNRESET).
	const agents = {
		http: new HttpAgent({ keepAlive: true, timeout: 4000 }),
		https: new HttpsAgent({ keepAlive: true, timeout: 4000 }),
	};

	function send(target: string, headers: Record<string, string>, body: string): Promise<SendResult> {
		const started = performance.now();
		const elapsed = () => Math.round(performance.now() - started);
		const url = new URL(target);
		try {
			// An IP literal never reaches `lookup`, so it is checked here.
			guard.checkHost(url);
		} catch (error) {
			return Promise.resolve(failure(0, `refused: ${(error as Error).message}`));
		}
		const https = url.protocol === "https:";
		return new Promise((settle) => {
			let status: number | null = null;
			let statusAt = 0;
			let settled = false;
			const chunks: Buffer[] = [];
			let read = 0;
			const finish = (error: string | null) => {
				if (settled) return;
				settled = true;
				clearTimeout(deadline);
				// For the owner to read, and for every store to keep: NUL (which PostgreSQL's text refuses) is U+FFFD.
				const text = Buffer.concat(chunks).toString("utf8").slice(0, RESPONSE_BODY_KEPT).replaceAll("\u0000", "\ufffd");
				if (status === null) settle(failure(elapsed(), error ?? "no response"));
				else {
					const ok = status >= 200 && status < 300;
					settle({
						responseStatus: status,
						responseTimeMs: statusAt,
						responseBody: text || null,
						error: ok ? null : `HTTP ${status}${status >= 300 && status < 400 ? " (redirects are not followed)" : ""}`,
					});
				}
			};
			const request = (https ? httpsRequest : httpRequest)(
				url,
				{
					method: "POST",
					headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
					agent: https ? agents.https : agents.http,
					lookup: guard.lookup,
				},
				(response: IncomingMessage) => {
					status = response.statusCode ?? null;
					statusAt = elapsed();
					response.on("data", (chunk: Buffer) => {
						if (read < RESPONSE_BODY_READ) chunks.push(chunk);
						read += chunk.length;
						if (read >= RESPONSE_BODY_READ) response.destroy();
					});
					response.on("end", () => finish(null));
					response.on("close", () => finish(null));
					response.on("error", () => finish(null));
				},
			);
			const deadline = setTimeout(() => {
				request.destroy(
					Object.assign(new Error(`no response within ${options.timeoutMs / 1000} s`), { code: "ETIMEDOUT" }),
				);
			}, options.timeoutMs);
			request.on("error", (error: NodeJS.ErrnoException) => finish(describe(error)));
			request.end(body);
		});
	}

	return {
		send,
		close() {
			agents.http.destroy();
			agents.https.destroy();
		},
	};
}

function failure(responseTimeMs: number, error: string): SendResult {
	return { responseStatus: null, responseTimeMs, responseBody: null, error };
}

function describe(error: NodeJS.ErrnoException): string {
	if (error.code === "EREFUSEDTARGET") return `refused: ${error.message}`;
	if (error.code === "ETIMEDOUT") return `timeout: ${error.message}`;
	return error.code ? `${error.code}: ${error.message}` : error.message;
}
