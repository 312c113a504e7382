/**
 * The console's only way to the server: the public REST API (interface spec), with the
 * session token as a Bearer credential and the chosen tenant as `X-Tenant-ID`. Every failure
 * becomes an `ApiError` carrying the API's code, message and field errors, so forms can show
 * each error next to the field the API named.
 */
import { BASE_URL } from "./base.ts";
import { MAX_RATE_LIMIT_RETRIES, pauseForRateLimit, withRequestSlot } from "./request-slots.ts";
import { session } from "./session.ts";

export interface Pagination {
	current_page: number;
	last_page: number;
	per_page: number;
	total: number;
	from: number;
	to: number;
}

export interface Page<T> {
	data: T[];
	pagination: Pagination;
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		/** The API's `errors` object of a 422: dotted field path → messages. */
		readonly fields: Record<string, string[]> = {},
	) {
		super(message);
	}

	/** The first message the API gave for a field, for the form control of that name. */
	field(name: string): string | undefined {
		return this.fields[name]?.[0];
	}
}

let apiBase = "";

/** Reads `config.json` beside index.html: `{ "apiBase": "https://as2.example.com" }`, default same origin. */
export async function loadConfig(): Promise<void> {
	try {
		const response = await fetch(new URL("config.json", BASE_URL), { cache: "no-cache" });
		if (response.ok) {
			const config = (await response.json()) as { apiBase?: unknown };
			if (typeof config.apiBase === "string") apiBase = config.apiBase.replace(/\/+$/, "");
		}
	} catch {
		// No config.json: the API is on this origin.
	}
}

export function apiUrl(path: string, query?: Query): string {
	const search = new URLSearchParams();
	for (const [key, value] of Object.entries(query ?? {})) {
		if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
	}
	const suffix = search.size > 0 ? `?${search}` : "";
	return `${apiBase}${path}${suffix}`;
}

export function authHeaders(): Record<string, string> {
	const headers: Record<string, string> = {};
	const token = session.token();
	if (token) headers.Authorization = `Bearer ${token}`;
	const tenant = session.tenantId();
	if (tenant) headers["X-Tenant-ID"] = tenant;
	return headers;
}

/** Listeners told when the API answers 401: the session is over (expired or signed out elsewhere). */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
	unauthorizedListeners.add(listener);
	return () => unauthorizedListeners.delete(listener);
}

/** The API's error body (`{ message, errors?, error: { code, message } }`) as an ApiError. */
export function apiErrorFrom(status: number, text: string): ApiError {
	let body: { message?: string; errors?: Record<string, string[]>; error?: { code?: string; message?: string } } = {};
	try {
		body = JSON.parse(text);
	} catch {
		// Not JSON (a proxy's error page): the status says enough.
	}
	if (status === 401 && session.token()) for (const listener of unauthorizedListeners) listener();
	return new ApiError(
		status,
		body.error?.code ?? `HTTP_${status}`,
		body.error?.message ?? body.message ?? `the server answered ${status}`,
		body.errors ?? {},
	);
}

export async function toApiError(response: Response): Promise<ApiError> {
	return apiErrorFrom(response.status, await response.text().catch(() => ""));
}

async function request<T>(method: string, path: string, options: { query?: Query; json?: unknown } = {}): Promise<T> {
	const headers: Record<string, string> = { Accept: "application/json", ...authHeaders() };
	if (options.json !== undefined) headers["Content-Type"] = "application/json";
	const send = () =>
		withRequestSlot(() =>
			fetch(apiUrl(path, options.query), {
				method,
				headers,
				body: options.json === undefined ? undefined : JSON.stringify(options.json),
			}),
		);
	let response: Response;
	try {
		response = await send();
		// A 429 is a refusal before anything was done (interface spec, Rate limit error), so any
		// request, a write too, is sent again after the short wait the server names: a click on
		// "Send test event" is not lost to the reads the screen made before it.
		for (let retry = 0; pauseForRateLimit(response) && retry < MAX_RATE_LIMIT_RETRIES; retry++) {
			response = await send();
		}
	} catch {
		throw new ApiError(0, "NETWORK_ERROR", "the server could not be reached");
	}
	if (!response.ok) throw await toApiError(response);
	if (response.status === 204) return undefined as T;
	return (await response.json()) as T;
}

export const api = {
	get: <T>(path: string, query?: Query) => request<T>("GET", path, { query }),
	post: <T>(path: string, json?: unknown) => request<T>("POST", path, { json: json ?? {} }),
	put: <T>(path: string, json: unknown) => request<T>("PUT", path, { json }),
	patch: <T>(path: string, json: unknown) => request<T>("PATCH", path, { json }),
	delete: <T>(path: string) => request<T>("DELETE", path),
	/** One page of a list endpoint: `{ data, pagination }`. */
	page: <T>(path: string, query?: Query) => request<Page<T>>("GET", path, { query }),
};
