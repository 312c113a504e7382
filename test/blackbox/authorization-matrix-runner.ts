/**
 * What the authorization matrix needs besides its table: the operations of the server's own
 * `/openapi.json`, and a pool that runs requests with bounded concurrency.
 */
import { call } from "./clients.ts";

export interface Operation {
	/** `METHOD /path`, the key of the matrix's table. */
	key: string;
	method: string;
	path: string;
	/** No security requirement (`security: []`). */
	public: boolean;
	/** The access rule the document states (`x-access`), if any. */
	access: { permission: string | null; reach: string } | undefined;
	/** Names of the path parameters, in order. */
	params: string[];
	/** Takes a request body. */
	hasBody: boolean;
}

/** Every operation of the document the server serves. */
export async function operationsOf(base: string): Promise<Operation[]> {
	const document = await call(base, "GET", "/openapi.json");
	if (document.status !== 200) throw new Error(`/openapi.json answered ${document.status}`);
	const paths = document.json.paths as Record<
		string,
		Record<string, { security?: unknown[]; "x-access"?: Operation["access"]; requestBody?: unknown }>
	>;
	return Object.entries(paths).flatMap(([path, methods]) =>
		Object.entries(methods).map(([method, operation]) => ({
			key: `${method.toUpperCase()} ${path}`,
			method: method.toUpperCase(),
			path,
			public: Array.isArray(operation.security) && operation.security.length === 0,
			access: operation["x-access"],
			params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
			hasBody: operation.requestBody !== undefined,
		})),
	);
}

/** Runs `task` over `items`, at most `concurrency` at a time; resolves with the results in order. */
export async function runBounded<T, R>(items: readonly T[], concurrency: number, task: (item: T) => Promise<R>) {
	const results: R[] = new Array(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const index = next++;
			results[index] = await task(items[index]!);
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
	return results;
}
