/**
 * The clients people point at the server: Node's fetch, a raw `node:net` socket (for what
 * fetch will not send: aborted bodies, bare headers, resets) and the `curl` CLI (bodiless
 * requests exactly as curl sends them). Every call has a bounded wait.
 */
import { execFile } from "node:child_process";
import { connect } from "node:net";

const DEFAULT_TIMEOUT_MS = 30_000;

export interface JsonResponse {
	status: number;
	headers: Headers;
	// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
	json: any;
	text: string;
}

export interface CallOptions {
	token?: string;
	/** JSON-encoded with `Content-Type: application/json` unless it is a string, FormData or bytes. */
	body?: unknown;
	headers?: Record<string, string>;
	timeoutMs?: number;
}

/** One request with fetch; the body is read whole (these are API answers, not payloads). */
export async function call(
	base: string,
	method: string,
	path: string,
	options: CallOptions = {},
): Promise<JsonResponse> {
	const headers: Record<string, string> = { accept: "application/json", ...options.headers };
	if (options.token) headers.authorization = `Bearer ${options.token}`;
	let body: BodyInit | undefined;
	if (options.body instanceof FormData || typeof options.body === "string" || options.body instanceof Uint8Array) {
		body = options.body as BodyInit;
	} else if (options.body !== undefined) {
		body = JSON.stringify(options.body);
		headers["content-type"] ??= "application/json";
	}
	const response = await fetch(`${base}${path}`, {
		method,
		headers,
		body,
		signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
	});
	const text = await response.text();
	let json: unknown = null;
	try {
		json = text ? JSON.parse(text) : null;
	} catch {}
	return { status: response.status, headers: response.headers, json, text };
}

export interface Registered {
	token: string;
	userId: string;
	tenantId: string;
	accountId: string;
	email: string;
	password: string;
}

let counter = 0;

/** Registers a new user, account and first tenant; returns the session and the ids. */
export async function register(
	base: string,
	name = `Blackbox Company ${process.pid} ${++counter}`,
): Promise<Registered> {
	const email = `blackbox${process.pid}.${++counter}@example.com`;
	const password = "correct horse battery";
	const registered = await call(base, "POST", "/auth/register", {
		body: { name, email, password, password_confirmation: password },
	});
	if (registered.status !== 201) throw new Error(`register failed: ${registered.status} ${registered.text}`);
	const account = await call(base, "GET", "/v1/account", { token: registered.json.token });
	if (account.status !== 200) throw new Error(`GET /v1/account failed: ${account.status} ${account.text}`);
	return {
		token: registered.json.token,
		userId: registered.json.user.id,
		tenantId: registered.json.tenant.id,
		accountId: account.json.data.id,
		email,
		password,
	};
}

/**
 * A new account with a live key of its first tenant holding every permission, and that tenant's
 * AS2 id: what the suites that play a trading partner start from.
 */
export async function liveTenant(base: string): Promise<{ user: Registered; liveKey: string; tenantAs2Id: string }> {
	const user = await register(base);
	const liveKey = await createKey(base, user.token, {
		scope: "tenant",
		tenant_id: user.tenantId,
		environment: "live",
		permissions: ["*"],
	});
	const tenant = await call(base, "GET", `/v1/tenants/${user.tenantId}`, { token: user.token });
	if (tenant.status !== 200) throw new Error(`GET /v1/tenants failed: ${tenant.status} ${tenant.text}`);
	return { user, liveKey, tenantAs2Id: tenant.json.data.as2_id };
}

/** Creates an API key with a credential that may; returns the full key. */
export async function createKey(base: string, token: string, body: Record<string, unknown>): Promise<string> {
	const created = await call(base, "POST", "/v1/api-keys", { token, body: { name: "blackbox key", ...body } });
	if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${created.text}`);
	return created.json.data.key;
}

/**
 * Creates a partner that takes messages as they are: unsigned, unencrypted, no MDN asked (a
 * quirky partner answering 200 completes each send); returns its id.
 */
export async function plainPartner(
	base: string,
	token: string,
	partner: { name: string; as2Id: string; url: string },
): Promise<string> {
	const created = await call(base, "POST", "/v1/partners", {
		token,
		body: {
			name: partner.name,
			as2_id: partner.as2Id,
			url: partner.url,
			sign: false,
			encrypt: false,
			mdn_mode: "none",
		},
	});
	if (created.status !== 201) throw new Error(`partner creation failed: ${created.status} ${created.text}`);
	return created.json.data.id;
}

export interface RawResponse {
	/** Null when the server closed or reset the connection without a status line. */
	status: number | null;
	/** Everything the server sent, as latin1 text. */
	raw: string;
	/** How the connection ended on our side. */
	ended: "closed" | "reset" | "timeout";
}

/**
 * Writes `head` then each chunk of `body` on a fresh TCP connection and reads what comes back
 * until the server closes, `timeoutMs` passes, or (with `resetAfterWrite`) we reset the
 * connection ourselves after the last chunk.
 */
export function rawRequest(
	port: number,
	head: string,
	body: Iterable<Uint8Array | string> = [],
	options: { timeoutMs?: number; resetAfterWrite?: boolean; pauseMs?: number } = {},
): Promise<RawResponse> {
	return new Promise((resolveResponse) => {
		const socket = connect({ host: "127.0.0.1", port });
		const received: Buffer[] = [];
		let settled = false;
		const finish = (ended: RawResponse["ended"]) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			const raw = Buffer.concat(received).toString("latin1");
			const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
			resolveResponse({ status: match ? Number(match[1]) : null, raw, ended });
		};
		const timer = setTimeout(() => {
			socket.destroy();
			finish("timeout");
		}, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
		socket.on("data", (chunk) => received.push(chunk));
		socket.on("error", () => finish("reset"));
		socket.on("close", () => finish("closed"));
		socket.on("connect", async () => {
			try {
				socket.write(head);
				for (const chunk of body) {
					if (socket.destroyed) break;
					if (!socket.write(chunk)) await new Promise((r) => socket.once("drain", r));
					if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
				}
				if (options.resetAfterWrite) socket.resetAndDestroy();
			} catch {
				finish("reset");
			}
		});
	});
}

/** Runs the `curl` CLI; resolves with its stdout (`-w` lines included) and exit code. */
export function curl(args: string[], timeoutMs = DEFAULT_TIMEOUT_MS): Promise<{ stdout: string; code: number }> {
	return new Promise((resolveRun) => {
		execFile("curl", ["--silent", "--show-error", "--max-time", String(timeoutMs / 1000), ...args], (error, stdout) => {
			resolveRun({ stdout, code: error ? ((error as { code?: number }).code ?? 1) : 0 });
		});
	});
}

/** `/health` answers 200 within `withinMs`; returns its latency in ms. */
export async function healthLatency(base: string, withinMs = 5_000): Promise<number> {
	const started = performance.now();
	const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(withinMs) });
	await response.text();
	if (response.status !== 200) throw new Error(`/health answered ${response.status}`);
	return performance.now() - started;
}
